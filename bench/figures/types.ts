/** What every figure gets from the runner. */
export interface FigureContext {
	/** Fewer repetitions and smaller sizes: a smoke run. */
	quick: boolean;
	/** One progress line on stderr (the table goes to stdout). */
	progress(line: string): void;
}
