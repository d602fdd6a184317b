module github.com/linkbench-go/linkbench

go 1.26
