package secret

import (
	"bytes"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// CheckHtpasswdSHA checks an htpasswd file as Envoy Gateway's
// validateHtpasswdFormat does (Envoy's basic auth reads only unsalted
// {SHA} entries): after CRLF becomes LF, every non-blank line is
// user:{SHA}<base64 of 20 bytes>. The errors are Envoy Gateway's; they
// quote no user and no hash.
func CheckHtpasswdSHA(v Value) error {
	data := bytes.ReplaceAll(v.bytes(), []byte("\r\n"), []byte("\n"))
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		_, password, ok := strings.Cut(line, ":")
		if !ok {
			return errors.New("invalid htpasswd format: each line must be in the format 'username:password'")
		}
		hash, ok := strings.CutPrefix(password, "{SHA}")
		if !ok {
			return errors.New("unsupported htpasswd format: please use {SHA}")
		}
		sum, err := base64.StdEncoding.DecodeString(hash)
		if err != nil {
			return errors.New("invalid htpasswd format: {SHA} must be base64-encoded SHA1")
		}
		if len(sum) != sha1.Size {
			return fmt.Errorf("invalid htpasswd format: {SHA} must be SHA1 (%d bytes)", sha1.Size)
		}
	}
	return nil
}

// Equal reports whether two values hold the same bytes (in constant time
// for values of one length), so that a caller can tell a duplicated key
// without seeing either.
func Equal(a, b Value) bool {
	return subtle.ConstantTimeCompare(a.bytes(), b.bytes()) == 1
}

// HtpasswdUsers checks an htpasswd file as kgateway's
// validateAndFilterSHAUsers does (the file trimmed of surrounding space
// first, as its fetchHtpasswdFromSecret does): blank lines and # comments
// are skipped; an entry needs a colon and a {SHA} hash of 28 characters;
// a name listed again with the same hash is one entry, with another hash
// it is dropped. It answers how many entries are usable and the line
// numbers of the dropped ones — kgateway names a dropped user, gwpol
// names its line, as a user name is the Secret's content.
func HtpasswdUsers(v Value) (valid int, dropped []int) {
	data := strings.TrimSpace(string(v.bytes()))
	hashes := map[string]string{}
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, ok := strings.Cut(line, ":")
		switch seen, dup := hashes[name]; {
		case !ok, !strings.HasPrefix(hash, "{SHA}") || len(hash) != len("{SHA}")+28:
			dropped = append(dropped, i+1)
		case dup && seen == hash:
		case dup:
			dropped = append(dropped, i+1)
		default:
			hashes[name] = hash
			valid++
		}
	}
	return valid, dropped
}

// Compare orders two values by their bytes (as bytes.Compare), so that a
// caller can sort credentials deterministically without seeing them.
func Compare(a, b Value) int { return bytes.Compare(a.bytes(), b.bytes()) }
