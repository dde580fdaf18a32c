package secret

import (
	"errors"
	"fmt"
	"strings"
)

// CheckKeyLines checks a credential list of one key per line, either a
// bare key (its own consumer) or key:consumer, split at the first colon;
// blank lines are skipped and a line's outer whitespace is dropped, but
// the key and the consumer are each one or more printable ASCII
// characters other than a space (HAPTIC writes them into a
// whitespace-delimited map: "key : alice" is the key "key " and refused).
// A key may appear again only for the same consumer: the list is a map
// from key to consumer, so a repeat that agrees adds nothing and one that
// names another consumer is ambiguous. The error names line numbers only —
// never a key or a consumer.
func CheckKeyLines(v Value) error {
	type first struct {
		line     int
		consumer string
	}
	seen := map[string]first{}
	lines := 0
	for i, line := range strings.Split(string(v.bytes()), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lines++
		k, c, hasConsumer := strings.Cut(line, ":")
		switch {
		case k == "":
			return fmt.Errorf("line %d has an empty key", i+1)
		case hasConsumer && c == "":
			return fmt.Errorf("line %d ends in ':' with no consumer (write the bare key, or key:consumer)", i+1)
		case !printable(k):
			return fmt.Errorf("line %d: a key is printable ASCII without spaces (no space around the ':' either)", i+1)
		case hasConsumer && !printable(c):
			return fmt.Errorf("line %d: a consumer is printable ASCII without spaces (no space around the ':' either)", i+1)
		}
		consumer := k
		if hasConsumer {
			consumer = c
		}
		if prev, dup := seen[k]; dup {
			if prev.consumer != consumer {
				return fmt.Errorf("line %d repeats the key of line %d for another consumer; each key names one consumer", i+1, prev.line)
			}
			continue
		}
		seen[k] = first{line: i + 1, consumer: consumer}
	}
	if lines == 0 {
		return errors.New("it holds no key (one per line: a bare key or key:consumer)")
	}
	return nil
}

// printable reports whether s is made of the characters '!' to '~' only.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}
