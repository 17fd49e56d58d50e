// The flash sale through n8n-core's engine over real HTTP (test/transport/pacing-burst.ts): the fixed-window, with budget headers and with a bare 429 (the two bursts side by side, each on its own sandbox), and its control.
// A file of its own: the bursts are paced in real time, so the files wait side by side.
import { algorithmTests } from './pacing-burst';

algorithmTests('fixed-window');
