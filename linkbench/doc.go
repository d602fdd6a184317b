// Package linkbench is the LinkBench workload and its drivers: the
// configuration of a run, the load phase that builds the social graph in a
// store, and the request phase that drives it with LinkBench's mix of
// operations, measuring every call.
//
// # The flow
//
// A run goes one way, from configuration to report:
//
//  1. A [Config]: start from [DefaultConfig] (the shipped LinkBench
//     workload), or read LinkBench's .properties files with
//     [ParseProperties], then change fields in Go. Each field's comment
//     names its LinkBench key and says what its zero value means; [Keys]
//     lists every key with its default and allowed values, and
//     [Config.Validate] returns a *[ConfigError] naming the key of a bad
//     value.
//  2. A store: any [store.Store] (package store defines the contract;
//     memstore, mysqlstore, pgstore and discard implement it, store.Open
//     opens one by name, and a store of your own passes the conformance
//     suite in store/storetest). The library never opens one itself.
//  3. [Load] writes the nodes and, with a pool of loaders over chunks of
//     the id range, each node's out-links and their counts, through the
//     store's bulk capabilities when it has them, and checks the node
//     table afterwards.
//  4. [Request] runs the requesters: each draws its operations from
//     [Config.Mix] and its ids from the access distributions, with its own
//     random stream and its own latency recorder, open or closed loop, for
//     a number of requests or a time ([Config.RunFor]). Every
//     progressfreq, [Config.OnProgress] receives the last interval's
//     figures ([Progress]).
//  5. Both return a *stats.Report: merged HDR histograms per operation,
//     counts of successes, misses, errors by class and abandoned calls,
//     the seeds, what the store's counters (retries, errors by server
//     code: store.CounterSource) grew by, throughput and goodput, and
//     writers for LinkBench's text, CSV and JSON. [Verify] checks a
//     store's counts afterwards.
//
// # Runs, as the tool makes them
//
// [Run] carries out a [Plan]: the load, request phases in steps and
// sweeps of the requesters, each with its result file and per-operation
// HDR interval logs (package results: what `linkbench compare` and
// `linkbench plot` read), one-second intervals, and host metrics
// ([HostOptions]; the store's server description, store.ServerDescriber,
// says where its data and process are). [Hooks] are called around the
// phases (print a report, create a deferred index). The linkbench
// command-line tool is flag parsing and printing around Run: a Go harness
// gets exactly the files the tool writes.
//
// Store calls can be observed by wrapping the store (store.Forward keeps
// its capabilities; [Tracer] writes every call in LinkBench's trace
// format; package store/fault injects faults).
//
// # Random modes
//
// The default mode ([RNGFast]) gives each load chunk and each requester a
// stream of its own derived from the seed, so a load does not depend on
// the number of loaders and a requester's operations depend only on the
// seed and its index. [RNGJava] draws as the Java benchmark does, so that
// a run reproduces its store calls. The mode is chosen once, when the run
// is prepared.
//
// Behaviour follows LinkBench's, as docs/behaviour.md in the repository
// describes it; the section numbers in the documentation (§6.3, quirk
// §11.2-17) refer to that document.
package linkbench
