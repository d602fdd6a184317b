package linkbench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PropertiesOptions tunes ParseProperties.
type PropertiesOptions struct {
	// Overrides are -D key=value settings: they win over both files.
	Overrides map[string]string
	// Home is $LINKBENCH_HOME, under which relative workload_file and
	// data_file paths are looked up first. Empty: the environment variable.
	Home string
	// WorkDir is where relative paths are looked up last. Empty: nowhere
	// else; the library never looks in the process's working directory on
	// its own (the command-line tool passes it here).
	WorkDir string
	// Connection, when not nil, receives the connection keys (host, port,
	// user, password: see Connection), which are not Config's; nil:
	// they are checked and dropped.
	Connection *Connection
}

// FileError reports a configuration file that cannot be read.
type FileError struct {
	Key   string   // the key that named the file ("" for the main file)
	Path  string   // the path as given
	Tried []string // the paths tried, in order
	Err   error
}

// Error implements error, in one line.
func (e *FileError) Error() string {
	what := "config file"
	if e.Key != "" {
		what = e.Key
	}
	if len(e.Tried) > 1 || (len(e.Tried) == 1 && e.Tried[0] != e.Path) {
		return fmt.Sprintf("%s %q: %v (tried %s)", what, e.Path, e.Err, strings.Join(e.Tried, ", "))
	}
	return fmt.Sprintf("%s %q: %v", what, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// ParseProperties reads a LinkBench configuration: the main .properties
// file at path (none when path is ""), the -D overrides, and the file named
// by the workload_file key, with LinkBench's precedence: overrides > main file > workload file
// (reference §4.1). Keys absent from all three keep DefaultConfig's values.
// Keys are case-sensitive; Java class names are accepted wherever
// LinkBench takes one (distributions, data generators, stores).
//
// A relative workload_file or data_file is looked up, in order, under
// Home ($LINKBENCH_HOME), beside the file that names it, and in WorkDir
// (when given), so configurations copied from a Java LinkBench checkout run
// unchanged. When the data_file key is absent, LinkBench's default,
// DefaultDataFile, is looked up under Home and in WorkDir. A
// data_file that is found is stored as an absolute path. A data_file equal
// to DefaultDataFile that is found nowhere is left as it is: the run then
// uses the built-in out-degree model and says so; any other data_file must
// exist.
//
// Errors: *FileError for a missing or unreadable file (listing the paths
// tried) or one that holds no keys (wrapping ErrNoKeys),
// *PropertySyntaxError for malformed syntax or binary data, *ConfigError for an
// unknown key (naming the closest known key) or a malformed value. The
// returned Config is not yet validated (see Config.Validate).
func ParseProperties(path string, opts PropertiesOptions) (Config, error) {
	cfg := DefaultConfig()
	if opts.Home == "" {
		opts.Home = os.Getenv("LINKBENCH_HOME")
	}

	var mainProps []Property
	if path != "" {
		var err error
		if mainProps, err = readPropertiesFile(path, ""); err != nil {
			return cfg, err
		}
	}
	type src struct {
		value, file string
		line        int
	}
	merged := map[string]src{}
	for _, p := range mainProps {
		merged[p.Key] = src{p.Value, path, p.Line}
	}
	for k, v := range opts.Overrides {
		merged[k] = src{value: v, file: "-D"}
	}
	cfg.SourceFiles = nil
	if path != "" {
		cfg.SourceFiles = []string{path}
	}
	if wf, ok := merged["workload_file"]; ok && strings.TrimSpace(wf.value) != "" {
		name := strings.TrimSpace(wf.value)
		wpath, tried, found := lookupFile(name, opts.Home, baseDir(wf.file, opts.WorkDir), opts.WorkDir)
		if !found {
			return cfg, &FileError{Key: "workload_file", Path: name, Tried: tried, Err: fs.ErrNotExist}
		}
		wprops, err := readPropertiesFile(wpath, "workload_file")
		if err != nil {
			return cfg, err
		}
		for _, p := range wprops {
			if _, ok := merged[p.Key]; !ok {
				merged[p.Key] = src{p.Value, wpath, p.Line}
			}
		}
		cfg.SourceFiles = append(cfg.SourceFiles, wpath)
	}

	names := make([]string, 0, len(merged))
	for k := range merged {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s := merged[k]
		where := "-D"
		if s.file != "-D" {
			where = fmt.Sprintf("%s:%d", s.file, s.line)
		}
		var err error
		if d, ok := keyIndex()[k]; ok && d.conn {
			var cn Connection
			if opts.Connection != nil {
				cn = *opts.Connection
			}
			if err = setConnection(&cn, k, strings.TrimSpace(s.value)); err == nil && opts.Connection != nil {
				*opts.Connection = cn
			}
		} else {
			err = cfg.Set(k, s.value)
		}
		if err != nil {
			var ce *ConfigError
			if errors.As(err, &ce) {
				ce.Where = where
			}
			return cfg, err
		}
		cfg.setOrigin(k, where)
	}

	dataDir := opts.WorkDir
	if df, ok := merged["data_file"]; ok {
		dataDir = baseDir(df.file, opts.WorkDir)
	}
	if err := resolveDataFile(&cfg, opts.Home, dataDir, opts.WorkDir); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// ResolveDataFile looks up a relative cfg.DataFile as ParseProperties does
// (under opts.Home, then in opts.WorkDir; an empty Home means
// $LINKBENCH_HOME, an empty WorkDir is not searched) and stores the
// absolute path found. DefaultDataFile may be missing (the built-in
// out-degree model is then used); any other missing file is a *FileError
// listing the paths tried. A program that builds its Config in Go calls it
// to find LinkBench's data file the way the command-line tool does:
//
//	wd, _ := os.Getwd()
//	err := linkbench.ResolveDataFile(&cfg, linkbench.PropertiesOptions{WorkDir: wd})
func ResolveDataFile(cfg *Config, opts PropertiesOptions) error {
	if opts.Home == "" {
		opts.Home = os.Getenv("LINKBENCH_HOME")
	}
	return resolveDataFile(cfg, opts.Home, opts.WorkDir)
}

func resolveDataFile(cfg *Config, dirs ...string) error {
	name := strings.TrimSpace(cfg.DataFile)
	if name == "" {
		return nil
	}
	p, tried, found := lookupFile(name, dirs...)
	switch {
	case found:
		cfg.DataFile = p
	case name != DefaultDataFile:
		return &FileError{Key: "data_file", Path: name, Tried: tried, Err: fs.ErrNotExist}
	}
	return nil
}

func baseDir(file, workDir string) string {
	if file == "" || file == "-D" {
		return workDir
	}
	return filepath.Dir(file)
}

// lookupFile finds name (absolute, or relative to each of dirs in order)
// and returns the absolute path found, or the paths tried.
func lookupFile(name string, dirs ...string) (path string, tried []string, found bool) {
	if filepath.IsAbs(name) {
		_, err := os.Stat(name)
		return name, []string{name}, err == nil
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p, err := filepath.Abs(filepath.Join(d, name))
		if err != nil || seen[p] {
			continue
		}
		seen[p] = true
		tried = append(tried, p)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, tried, true
		}
	}
	return "", tried, false
}

// ErrNoKeys is the error (wrapped in a *FileError) for a configuration
// file that holds no keys: an empty file, /dev/null, or comments only.
// Running with it would silently run the default workload of ten million
// nodes, so ParseProperties refuses it.
var ErrNoKeys = errors.New("holds no configuration keys (an empty file would run the default workload of 10000000 nodes)")

func readPropertiesFile(path, key string) ([]Property, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Key: key, Path: path, Err: unwrapPathError(err)}
	}
	defer f.Close()
	props, err := ReadProperties(f)
	if err != nil {
		var se *PropertySyntaxError
		if errors.As(err, &se) {
			se.File = path
			return nil, se
		}
		return nil, &FileError{Key: key, Path: path, Err: unwrapPathError(err)}
	}
	if len(props) == 0 {
		return nil, &FileError{Key: key, Path: path, Err: ErrNoKeys}
	}
	return props, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
