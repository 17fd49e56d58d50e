/**
 * `npm run test:queue`: the ERP Polling Trigger's catch-up in queue mode (main polls, 2 workers
 * run), with n8n 2.41's durable poll cursors on in every process (DURABLE_CURSOR_FLAGS). See polling-queue.ts.
 */
import { usePollingInQueueMode } from './polling-queue';

usePollingInQueueMode(true);
