package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/stats/results"
)

const mergeUsage = "usage: linkbench merge [-overwrite] FILE... -o OUT.json"

// runMerge is "linkbench merge": one result file of the result files of
// one phase written by several processes (-shard I/N), with the exact sum
// of their HDR logs (results.Merge), then its tables, the merged row and
// each host's.
func runMerge(args []string, stdout, stderr io.Writer) error {
	paths, out, overwrite, err := parseMergeArgs(args, stderr)
	if err != nil {
		return err
	}
	if err := atomicfile.CheckWritable(out); err != nil {
		return usageError{fmt.Errorf("merge: -o: %w", err)}
	}
	if in := sameFileAs(out, paths); in != "" {
		return usageError{fmt.Errorf("merge: -o %s is the input %s: name a new file", out, in)}
	}
	if !overwrite {
		if _, err := results.Read(out); err == nil {
			return usageError{fmt.Errorf("merge: -o %s exists (add -overwrite to replace it)", out)}
		}
	}
	m, err := results.Merge(paths)
	if errors.Is(err, results.ErrMerge) {
		return usageError{fmt.Errorf("merge: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if err := results.WriteMerged(out, m); err != nil {
		return err
	}
	return results.WriteTables(stdout, []results.File{*m.File}, results.FormatText)
}

// sameFileAs returns the input of paths that out names (the same path,
// or the same file through another path), or "".
func sameFileAs(out string, paths []string) string {
	oa, _ := filepath.Abs(out)
	ost, oerr := os.Stat(out)
	for _, p := range paths {
		if pa, _ := filepath.Abs(p); pa == oa {
			return p
		}
		if oerr == nil {
			if st, err := os.Stat(p); err == nil && os.SameFile(ost, st) {
				return p
			}
		}
	}
	return ""
}

// parseMergeArgs parses merge's command line: the input files, -o and
// -overwrite. -h prints the usage to stderr (flag.ErrHelp).
func parseMergeArgs(args []string, stderr io.Writer) (paths []string, out string, overwrite bool, err error) {
	fs := flag.NewFlagSet("linkbench merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&out, "o", "", "write the merged result file to `file` (.json; its HDR logs beside it)")
	fs.BoolVar(&overwrite, "overwrite", false, "replace an existing -o file")
	paths, err = parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, mergeUsage)
			fmt.Fprintln(stderr, "Merges the result files of one phase run by several processes (-shard I/N, -start-at): latencies are the sum of their HDR logs, counts are summed, each host keeps its row.")
			fmt.Fprintln(stderr, "Exit status 2, one line naming the file as given: files that cannot be merged (different runs, a shard missing or given twice, windows that do not overlap), an input or HDR log that cannot be read or does not add up, an -o that is one of the inputs or exists (without -overwrite).")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, "", false, err
		}
		return nil, "", false, usageError{fmt.Errorf("merge: %w (%s)", err, mergeUsage)}
	}
	if out == "" || filepath.Ext(out) != ".json" {
		return nil, "", false, usageError{fmt.Errorf("merge: -o: want the merged file's name, ending in .json (%s)", mergeUsage)}
	}
	if len(paths) < 2 {
		return nil, "", false, usageError{fmt.Errorf("merge: %d result files given: want two or more (%s)", len(paths), mergeUsage)}
	}
	return paths, out, overwrite, nil
}
