package pgstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/linkbench-go/linkbench/store/pgstore"
)

// Open a store on a PostgreSQL server and create the schema of database
// linkdb0 (not run: it needs a server).
func ExampleOpen() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, pgstore.Options{DSN: "postgres://linkbench:pw@127.0.0.1:5432/linkbench"})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateSchema(ctx, "linkdb0", pgstore.SchemaOptions{IfNotExists: true}); err != nil {
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
