package pgstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// Open a store on a PostgreSQL server through the registry, as a tool that
// knows no store's package does, and create the schema of database
// linkdb0 with the store's capability (not run: it needs a server).
func ExampleOpen() {
	ctx := context.Background()
	st, err := store.Open(ctx, pgstore.Name, "postgres://linkbench:pw@127.0.0.1:5432/linkbench")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close(st)
	if sc, ok := store.AsSchemaCreator(st); ok {
		err = sc.EnsureSchema(ctx, "linkdb0", store.SchemaOptions{DeferIndex: true})
	}
	if err != nil {
		log.Fatal(err)
	}
}

// Passwords never reach a message or a log, in either DSN form.
func ExampleRedactDSN() {
	fmt.Println(pgstore.RedactDSN("postgres://linkbench:s3cret@db.example:5432/linkbench"))
	fmt.Println(pgstore.RedactDSN("host=db.example user=linkbench password=s3cret dbname=linkbench"))
	// Output:
	// postgres://linkbench:*****@db.example:5432/linkbench
	// host=db.example user=linkbench password=***** dbname=linkbench
}
