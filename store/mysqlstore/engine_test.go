package mysqlstore

import (
	"context"
	"errors"
	"testing"
)

// TestCreateSchemaEngineMismatch: CreateSchema with IfNotExists over an
// existing link table of another engine fails with an EngineMismatchError
// naming both engines, and TableEngine reports the table's engine; the
// same engine passes.
func TestCreateSchemaEngineMismatch(t *testing.T) {
	requireEngine(t, testDSN(t), RocksDB)
	s := newTestStore(t, InnoDB, nil)
	ctx := context.Background()
	if e, err := s.TableEngine(ctx, ""); err != nil || e != InnoDB {
		t.Fatalf("TableEngine = %q, %v; want InnoDB", e, err)
	}
	if e, err := s.TableEngine(ctx, "lbt_no_such_db"); err != nil || e != "" {
		t.Errorf("TableEngine of a missing table = %q, %v; want \"\", nil", e, err)
	}
	if err := s.CreateSchema(ctx, "", SchemaOptions{IfNotExists: true}); err != nil {
		t.Errorf("CreateSchema(IfNotExists) with the same engine: %v", err)
	}
	err := s.CreateSchema(ctx, "", SchemaOptions{IfNotExists: true, Engine: RocksDB})
	var me *EngineMismatchError
	if !errors.As(err, &me) || me.Have != InnoDB || me.Want != RocksDB {
		t.Fatalf("CreateSchema(IfNotExists, ROCKSDB) over InnoDB tables: %v; want an EngineMismatchError InnoDB/ROCKSDB", err)
	}
}
