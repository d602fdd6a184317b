package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/linkbench-go/linkbench/linkbench"
)

// k8sJob is what TestKubernetesManifests reads of a manifest document.
type k8sJob struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

var k8sVar = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// TestKubernetesManifests (issue 19, item 5): deploy/kubernetes's
// manifests parse; each Indexed Job's pods run shard $(JOB_COMPLETION_INDEX)
// of N (completions = parallelism = N) with result files in a
// per-shard directory of the mounted volume; and every command line, with
// Kubernetes's $(VAR) expanded for each index, is accepted by the tool's
// flag parser and its configuration checks (merge's by merge's parser),
// naming the files the shards write; a load sets load_random_seed and a
// request phase request_random_seed (the same in every pod).
func TestKubernetesManifests(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "deploy", "kubernetes", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifest in deploy/kubernetes (%v)", err)
	}
	indexed, merges := 0, 0
	written := map[string]bool{} // the result files the shards write
	var mergeInputs []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var j k8sJob
			if err := dec.Decode(&j); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if j.Kind != "Job" {
				continue
			}
			cs := j.Spec.Template.Spec.Containers
			if len(cs) != 1 || len(cs[0].Command) != 1 || cs[0].Command[0] != "linkbench" {
				t.Fatalf("%s: job %s: want one container running linkbench", p, j.Metadata.Name)
			}
			c := cs[0]
			env := map[string]string{"LINKBENCH_DSN": "user:pw@tcp(db:3306)/"} // from the Secret
			for _, e := range c.Env {
				if e.Value != "" {
					env[e.Name] = e.Value
				}
			}
			mounted := len(c.VolumeMounts) == 1 && c.VolumeMounts[0].MountPath == "/results"
			if !mounted {
				t.Errorf("%s: job %s does not mount the results volume at /results", p, j.Metadata.Name)
			}
			if len(c.Args) > 0 && c.Args[0] == "merge" {
				merges++
				in, out, _, err := parseMergeArgs(c.Args[1:], io.Discard)
				if err != nil {
					t.Errorf("%s: job %s: merge's parser refuses %q: %v", p, j.Metadata.Name, c.Args, err)
				}
				if !strings.HasPrefix(out, "/results/") {
					t.Errorf("%s: job %s: -o %s is not on the results volume", p, j.Metadata.Name, out)
				}
				mergeInputs = append(mergeInputs, in...)
				continue
			}
			if j.Spec.CompletionMode != "Indexed" || j.Spec.Completions == nil || j.Spec.Parallelism == nil ||
				*j.Spec.Completions != *j.Spec.Parallelism {
				t.Errorf("%s: job %s: want an Indexed Job whose pods all run at once (completions = parallelism)", p, j.Metadata.Name)
				continue
			}
			indexed++
			n := *j.Spec.Completions
			for i := range n {
				env["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
				args := make([]string, len(c.Args))
				for k, a := range c.Args {
					args[k] = k8sVar.ReplaceAllStringFunc(a, func(v string) string {
						name := k8sVar.FindStringSubmatch(v)[1]
						if x, ok := env[name]; ok {
							return x
						}
						t.Errorf("%s: job %s: $(%s) is not set", p, j.Metadata.Name, name)
						return v
					})
				}
				o, err := parseArgs(args, io.Discard)
				if err != nil {
					t.Errorf("%s: job %s, index %d: the flag parser refuses %q: %v", p, j.Metadata.Name, i, args, err)
					continue
				}
				cfg, err := buildConfig(o)
				if err == nil {
					err = cfg.Validate()
				}
				if err != nil {
					t.Errorf("%s: job %s, index %d: %v", p, j.Metadata.Name, i, err)
					continue
				}
				if o.load {
					if err := linkbench.CheckShardedLoad(cfg); err != nil {
						t.Errorf("%s: job %s, index %d: %v", p, j.Metadata.Name, i, err)
					}
				}
				if o.req && !cfg.RequestRandomSeed.Set {
					t.Errorf("%s: job %s: no request_random_seed: the shards' requesters would not draw one run's streams", p, j.Metadata.Name)
				}
				if cfg.Shard.Index != i || cfg.Shard.Count != n {
					t.Errorf("%s: job %s, index %d runs shard %s, want %d/%d", p, j.Metadata.Name, i, cfg.Shard, i, n)
				}
				if o.startAt.IsZero() {
					t.Errorf("%s: job %s: no -start-at", p, j.Metadata.Name)
				}
				if !strings.HasPrefix(o.resultsDir, "/results/") || !strings.Contains(o.resultsDir, strconv.Itoa(i)) {
					t.Errorf("%s: job %s, index %d: -results %q is not a directory of its own on the volume", p, j.Metadata.Name, i, o.resultsDir)
				}
				for _, ph := range []string{"load", "request"} {
					if ph == "load" && o.load || ph == "request" && o.req {
						written[filepath.Join(o.resultsDir, o.label+"."+ph+".json")] = true
					}
				}
			}
		}
	}
	if indexed < 2 || merges != 1 {
		t.Errorf("%d Indexed Jobs and %d merge Jobs, want the load's and the requests' and one merge", indexed, merges)
	}
	for _, in := range mergeInputs {
		if !written[in] {
			t.Errorf("merge reads %s, which no shard writes", in)
		}
	}
}
