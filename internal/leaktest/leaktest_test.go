package leaktest

import (
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
)

// Every encoding is one the key loader reads as the key.
func TestLoaderAcceptsEveryEncoding(t *testing.T) {
	for name, enc := range Encodings(Key) {
		got, err := didweb.ParsePrivateKey([]byte(enc))
		if err != nil || !got.Equal(Key) {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
}
