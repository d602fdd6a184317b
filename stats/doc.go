// Package stats collects and reports LinkBench's measurements.
//
// Each worker goroutine owns a Recorder: per operation (Op, LinkBench's
// ordinals) it keeps an HDR histogram of latencies in microseconds (1 us ..
// 1 h, 3 significant digits by default; github.com/HdrHistogram/hdrhistogram-go),
// with successes, misses (found == false) and errors counted apart and error
// latencies in their own histogram; in open-loop mode a second series keeps
// the service time. Values out of range are clamped and counted, never
// dropped. Recording allocates nothing once an operation's histograms exist.
//
// After the workers stop, Merge combines their recorders into a Report, which
// the driver completes (configuration header, elapsed time, load or request
// totals, store counters) and writes as LinkBench-style text (WriteText: the
// HDR latency lines, completion line and a one-line summary), LinkBench's
// -csvstats CSV (WriteCSV) or JSON (WriteJSON). While running, recorders
// built with Options.Interval write LinkBench's -csvstream rows through a
// shared StreamWriter.
//
// Report percentiles, maxima, minima and means follow Java HdrHistogram
// 2.1.12 (as LinkBench reports them, reference §9.3), and numbers are
// formatted as Java's String.format, DecimalFormat and Double.toString, so
// the lines and CSV rows match the Java benchmark's byte for byte (reference
// §10.2).
//
// The package has no global state and never prints: every output goes to
// the io.Writer the caller passes.
package stats
