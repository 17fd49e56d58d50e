/**
 * `npm run test:queue`: the ERP Polling Trigger's catch-up in queue mode (main polls, 2 workers
 * run), with the default poll cursors (static data saved with the poll that emits). See polling-queue.ts.
 */
import { usePollingInQueueMode } from './polling-queue';

usePollingInQueueMode(false);
