/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The CPU time a process has used so far (user + system, all its threads, not its children), from
// Linux's /proc: a figure that other jobs on a shared machine slow down far less than wall time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (the unit of /proc's times); 100 if getconf cannot say. */
function clockTicks(): number {
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- reads the clock tick rate once
	const text = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
	return Number(text.trim()) || 100;
}

/** Seconds of CPU used by process `pid`, or undefined where /proc is not there (not Linux). */
export function processCpuSeconds(pid: number): number | undefined {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	// Fields after the command name (which may hold spaces, in parentheses): state is field 3,
	// utime and stime fields 14 and 15.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	ticksPerSecond ??= clockTicks();
	return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}
