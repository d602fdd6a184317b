//go:build !unix

package audit

import "os"

// fileWriter writes records to a file with os.File.Write.
type fileWriter struct{ f *os.File }

func newFileWriter(f *os.File) *fileWriter { return &fileWriter{f: f} }

func (w *fileWriter) write(b []byte) error {
	_, err := w.f.Write(b)
	return err
}
