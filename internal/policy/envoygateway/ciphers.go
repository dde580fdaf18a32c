package envoygateway

import "strings"

// boringCiphers are the TLS 1.0–1.2 cipher suites Envoy's BoringSSL
// accepts, by OpenSSL name and by IANA name. Envoy refuses a listener
// whose cipher list names any other, so Envoy Gateway rejects the policy
// before it gets there.
var boringCiphers = cipherSet()

func cipherSet() map[string]bool {
	set := map[string]bool{}
	for _, pair := range [][2]string{
		{"ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
		{"ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
		{"ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
		{"ECDHE-PSK-CHACHA20-POLY1305", "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256"},
		{"ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"},
		{"ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"},
		{"ECDHE-PSK-AES128-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA"},
		{"ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
		{"ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"},
		{"ECDHE-PSK-AES256-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA"},
		{"AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"},
		{"AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384"},
		{"AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"},
		{"AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA"},
		{"PSK-AES128-CBC-SHA", "TLS_PSK_WITH_AES_128_CBC_SHA"},
		{"PSK-AES256-CBC-SHA", "TLS_PSK_WITH_AES_256_CBC_SHA"},
		{"DES-CBC3-SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA"},
	} {
		set[pair[0]], set[pair[1]] = true, true
	}
	return set
}

// unsupportedCipher is the first entry of a cipher list Envoy's BoringSSL
// does not know, and whether there is one (an empty entry is one: Envoy
// Gateway's validateCipherSuites refuses it, "unsupported cipher suite: ").
// An entry may be a "[A|B]" group of equally preferred suites.
func unsupportedCipher(ciphers []string) (string, bool) {
	for _, c := range ciphers {
		group := strings.TrimSuffix(strings.TrimPrefix(c, "["), "]")
		for _, name := range strings.Split(group, "|") {
			if !boringCiphers[name] {
				return c, true
			}
		}
	}
	return "", false
}

// ciphers checks the ClientTrafficPolicy's TLS cipher list.
func (v valueChecks) ciphers(names []string) bool {
	if bad, ok := unsupportedCipher(names); ok {
		v.invalid([]string{"tls", "ciphers"}, "TLS: unsupported cipher suite: %s.", bad)
		return false
	}
	return true
}
