// Command linkbench runs the LinkBench social-graph benchmark: a load
// phase that builds the graph and a request phase that drives LinkBench's
// operation mix against it, then prints LinkBench's report. Its flags,
// keys and exit statuses are documented in package
// github.com/linkbench-go/linkbench/cmd/linkbench/cli, which a build of the tool of your
// own (with a store of your own) calls in the same way.
package main

import "github.com/linkbench-go/linkbench/cmd/linkbench/cli"

func main() { cli.Main() }
