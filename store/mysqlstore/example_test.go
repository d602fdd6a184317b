package mysqlstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// Open a store on a MySQL server and create LinkBench's tables for
// MyRocks (not run: it needs a server).
func ExampleOpen() {
	ctx := context.Background()
	st, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: "linkbench:pw@tcp(127.0.0.1:3306)/", Engine: mysqlstore.RocksDB})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateSchema(ctx, "linkdb0", mysqlstore.SchemaOptions{IfNotExists: true}); err != nil {
		log.Fatal(err)
	}
}

// Passwords never reach a message or a log.
func ExampleRedactDSN() {
	fmt.Println(mysqlstore.RedactDSN("linkbench:s3cret@tcp(db.example:3306)/linkdb0"))
	// Output: linkbench:*****@tcp(db.example:3306)/linkdb0
}
