module github.com/linkbench-go/linkbench

go 1.26.0

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	golang.org/x/sync v0.25.0 // indirect
	pgregory.net/rand v1.0.2 // indirect
)
