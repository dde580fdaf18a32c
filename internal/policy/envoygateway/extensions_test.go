package envoygateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// extensionObjects are the backends and the Gateway (with its
// EnvoyProxy) the EnvoyExtensionPolicies under test reach.
const extensionObjects = `
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 9000}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: ip, namespace: app}
spec: {endpoints: [{ip: {address: 1.1.1.1, port: 9000}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: fqdn, namespace: app}
spec: {endpoints: [{fqdn: {hostname: ext.example.com, port: 9000}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: ip-and-uds, namespace: app}
spec: {endpoints: [{ip: {address: 2.2.2.2, port: 9000}}, {unix: {path: /var/run/x.sock}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: ip-and-fqdn, namespace: app}
spec: {endpoints: [{ip: {address: 2.2.2.2, port: 9000}}, {fqdn: {hostname: ext.example.com, port: 9000}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dyn, namespace: app}
spec: {type: DynamicResolver}
---
apiVersion: v1
kind: Service
metadata: {name: idle, namespace: app}
spec: {ports: [{name: grpc, port: 9000}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: idle-1, namespace: app, labels: {kubernetes.io/service-name: idle}}
addressType: IPv4
ports: [{name: grpc, port: 9000, protocol: TCP}]
endpoints: []
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata: {name: proxy, namespace: app}
spec:
  dynamicModules:
  - {name: allowed, source: {local: {path: /opt/a.so}}}
  - {name: remote, source: {type: Remote, remote: {url: "https://modules.example.com/a.so", sha256: abc}}}
  - {name: remote-port, source: {type: Remote, remote: {url: "https://modules.example.com:8443/a.so", sha256: abc}}}
  - {name: no-remote, source: {type: Remote}}
  - {name: no-url, source: {type: Remote, remote: {url: "", sha256: abc}}}
  - {name: no-sha, source: {type: Remote, remote: {url: "https://modules.example.com/a.so", sha256: ""}}}
  - {name: ftp, source: {type: Remote, remote: {url: "ftp://modules.example.com/a.so", sha256: abc}}}
  - {name: relative, source: {type: Remote, remote: {url: "a.so", sha256: abc}}}
  - {name: no-host, source: {type: Remote, remote: {url: "https:///a.so", sha256: abc}}}
  - {name: no-local, source: {type: Local}}
  - {name: other-type, source: {type: Image}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: eg
  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata: {name: lenient, namespace: app}
spec: {luaValidation: Disabled}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: lenient, namespace: app}
spec:
  gatewayClassName: eg
  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: lenient}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: plain, namespace: app}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
`

func TestExtensionChecks(t *testing.T) {
	const extProc = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{backendRefs: "
	tests := []struct {
		name, spec, invalid string
	}{
		{"one endpoint type", extProc + "[{name: svc, port: 9000}, {group: gateway.envoyproxy.io, kind: Backend, name: ip}]}]\n", ""},
		{"IP and FQDN destinations", extProc + "[{group: gateway.envoyproxy.io, kind: Backend, name: ip}, {group: gateway.envoyproxy.io, kind: Backend, name: fqdn}]}]\n",
			"ExtProc: external service destinations having multiple endpoint types are not supported."},
		{"one Backend of mixed endpoints", extProc + "[{group: gateway.envoyproxy.io, kind: Backend, name: ip-and-uds}]}]\n", ""},
		{"one Backend of FQDN and IP endpoints", extProc + "[{group: gateway.envoyproxy.io, kind: Backend, name: ip-and-fqdn}]}]\n",
			"ExtProc: mixed endpointslice address type for the same backendRef is not supported."},
		{"a DynamicResolver Backend", extProc + "[{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]}]\n",
			"ExtProc: dynamic resolver destinations are not supported."},
		{"a Service whose EndpointSlices list no address for the port", extProc + "[{name: idle, port: 9000}]}]\n",
			"ExtProc: no ready endpoints for the related Service app/idle."},
		{"a backend of weight 0 builds no destination", extProc + "[{name: svc, port: 9000}, {name: idle, port: 9000, weight: 0}, {group: gateway.envoyproxy.io, kind: Backend, name: dyn, weight: 0}]}]\n", ""},
		{"registered module", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  dynamicModule: [{name: allowed}]\n", ""},
		{"unregistered module", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  dynamicModule: [{name: other}]\n",
			`DynamicModule: dynamic module "other" is not registered in the EnvoyProxy dynamicModules allowlist.`},
		{"Lua that parses", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  lua: [{type: Inline, inline: \"function envoy_on_request(h) h:logInfo('x') end\"}]\n", ""},
		{"Lua syntax error", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  lua: [{type: Inline, inline: \"function envoy_on_response(h)\\n if 1 > 0\\n print(1)\\n end\\nend\"}]\n",
			"Lua: validation failed for lua body in policy with name envoyextensionpolicy/app/p/lua/0: failed to validate with envoy_on_response: <string> line:3(column:6) near 'print':   syntax error\n."},
		{"Lua calling a method the stream handle lacks", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  lua: [{type: Inline, inline: \"function envoy_on_response(h)\\n if h:headers():get('a') then\\n  h:UnknownApi()\\n end\\nend\"}]\n",
			"Lua: validation failed for lua body in policy with name envoyextensionpolicy/app/p/lua/0: failed to validate with envoy_on_response: <string>:3: attempt to call a non-function object (the stream handle has no method UnknownApi)."},
		{"Lua calling the handle's methods and others' freely", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  lua: [{type: Inline, inline: \"function envoy_on_request(h) h:headers():anything() other:UnknownApi() h:respond({}, '') end\"}]\n", ""},
		{"Lua calling an unknown method, validation not strict", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: lenient}]\n  lua: [{type: Inline, inline: \"function envoy_on_request(h) h:UnknownApi() end\"}]\n", ""},
		{"Lua syntax error, validation disabled", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: lenient}]\n  lua: [{type: Inline, inline: \"function envoy_on_response(h) if end\"}]\n", ""},
		{"Lua naming no entry point, broken too: refused before it is parsed", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  lua: [{type: Inline, inline: \"function on_request(h) if end\"}]\n",
			"Lua: validation failed for lua body in policy with name envoyextensionpolicy/app/p/lua/0: expected one of envoy_on_request() or envoy_on_response() to be defined."},
		{"Lua naming no entry point, validation disabled", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: lenient}]\n  lua: [{type: Inline, inline: \"return 1\"}]\n",
			"Lua: validation failed for lua body in policy with name envoyextensionpolicy/app/p/lua/0: expected one of envoy_on_request() or envoy_on_response() to be defined."},
		{"Lua naming an entry point in a comment only, validation disabled", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: lenient}]\n  lua: [{type: Inline, inline: \"-- envoy_on_response\\nreturn 1\"}]\n", ""},
		{"no EnvoyProxy in the input: Envoy Gateway's default registers no module", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: plain}]\n  dynamicModule: [{name: other}]\n",
			`DynamicModule: dynamic module "other" is not registered in the EnvoyProxy dynamicModules allowlist.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := extensionInvalid(t, tc.spec, extensionsOn(policy.Config{})); got != tc.invalid {
				t.Errorf("invalid = %q, want %q", got, tc.invalid)
			}
		})
	}
}

// TestExtensionBackendDisabled: with Envoy Gateway's Backend kind disabled
// (envoyGateway.enableBackend: false) an extension may not call a
// Backend; a Service is unaffected.
func TestExtensionBackendDisabled(t *testing.T) {
	const extProc = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{backendRefs: "
	// off explicitly, and left at the default, which is Envoy Gateway's
	offs := []policy.Config{{Values: map[string]any{EnableBackend.Key: false}}, {}}
	tests := []struct{ name, spec, invalid string }{
		{"Backend", extProc + "[{group: gateway.envoyproxy.io, kind: Backend, name: ip}]}]\n",
			"ExtProc: resource ip of type Backend cannot be used since Backend is disabled in Envoy Gateway configuration (if the deployment's EnvoyGateway configuration enables it, say so in .gwpol.yaml: {envoyGateway: {enableBackend: true}})."},
		{"Service", extProc + "[{name: svc, port: 9000}]}]\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, off := range offs {
				if got := extensionInvalid(t, tc.spec, off); got != tc.invalid {
					t.Errorf("config %v: invalid = %q, want %q", off.Values, got, tc.invalid)
				}
			}
		})
	}
}

// TestExtensionLuaDisabled: a deployment that does not enable Lua
// (envoyGateway.extensionApis.enableLua: false, Envoy Gateway's own
// default) refuses every Lua policy before reading its script; other
// extensions are unaffected.
func TestExtensionLuaDisabled(t *testing.T) {
	// off explicitly, and left at the default, which is Envoy Gateway's
	offs := []policy.Config{{Values: map[string]any{EnableLua.Key: false}}, {}}
	const gw = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
	tests := []struct{ name, spec, invalid string }{
		{"Lua that parses", gw + "  lua: [{type: Inline, inline: \"function envoy_on_request(h) h:logInfo('x') end\"}]\n",
			"Lua: Skipping Lua EnvoyExtensionPolicy as feature is disabled in the Gateway (if the deployment's EnvoyGateway configuration enables it, say so in .gwpol.yaml: {envoyGateway: {extensionApis: {enableLua: true}}})"},
		{"Lua with validation disabled", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: lenient}]\n  lua: [{type: Inline, inline: \"function envoy_on_response(h) if end\"}]\n",
			"Lua: Skipping Lua EnvoyExtensionPolicy as feature is disabled in the Gateway (if the deployment's EnvoyGateway configuration enables it, say so in .gwpol.yaml: {envoyGateway: {extensionApis: {enableLua: true}}})"},
		{"no Lua", gw + "  dynamicModule: [{name: allowed}]\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, off := range offs {
				if got := extensionInvalid(t, tc.spec, off); got != tc.invalid {
					t.Errorf("config %v: invalid = %q, want %q", off.Values, got, tc.invalid)
				}
			}
		})
	}
	on := policy.Config{Values: map[string]any{EnableLua.Key: "true"}} // as a GWPOL_* variable gives it
	if got := extensionInvalid(t, tests[0].spec, on); got != "" {
		t.Errorf("enableLua \"true\": invalid = %q, want none", got)
	}
}

// extensionInvalid decodes an EnvoyExtensionPolicy of the spec given,
// beside extensionObjects, and returns its first Invalid message ("" for
// none).
func extensionInvalid(t *testing.T, spec string, cfg policy.Config) string {
	t.Helper()
	doc := extensionObjects + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" + spec
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	reg := policy.NewRegistry(All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	p := EnvoyExtensionPolicy().Decode(objs[len(objs)-1], &policy.Env{Model: m, Config: cfg})
	if len(p.Invalid) == 0 {
		return ""
	}
	return p.Invalid[0].Message
}

// TestDynamicModuleSources: buildDynamicModules checks the allowlist
// entry of every module the policy names — a Remote source needs its
// remote block, a URL and a sha256, and a URL Envoy Gateway accepts
// (validateDynamicModuleRemoteURL: a request URI, http or https, with a
// host); a Local one its local block; another type is refused — and
// reports every module's problem.
func TestDynamicModuleSources(t *testing.T) {
	const gw = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
	tests := []struct {
		name    string
		modules string
		want    []string
	}{
		{"remote", "[{name: remote}, {name: remote-port}]", nil},
		{"no remote block", "[{name: no-remote}]", []string{`DynamicModule: dynamic module "no-remote" has no remote source configured.`}},
		{"no URL", "[{name: no-url}]", []string{`DynamicModule: dynamic module "no-url" has no remote source URL configured.`}},
		{"no sha256", "[{name: no-sha}]", []string{`DynamicModule: dynamic module "no-sha" has no remote source SHA256 configured.`}},
		{"scheme", "[{name: ftp}]", []string{`DynamicModule: dynamic module "ftp" has invalid remote source URL "ftp://modules.example.com/a.so": unsupported URL scheme "ftp".`}},
		{"not a request URI", "[{name: relative}]", []string{`DynamicModule: dynamic module "relative" has invalid remote source URL "a.so": parse "a.so": invalid URI for request.`}},
		{"no host", "[{name: no-host}]", []string{`DynamicModule: dynamic module "no-host" has invalid remote source URL "https:///a.so": URL must include a hostname.`}},
		{"no local block", "[{name: no-local}]", []string{`DynamicModule: dynamic module "no-local" has no local source configured.`}},
		{"other source type", "[{name: other-type}]", []string{`DynamicModule: dynamic module "other-type" has unsupported source type "Image".`}},
		{"every module's problem", "[{name: other}, {name: allowed}, {name: no-sha}]", []string{
			`DynamicModule: dynamic module "other" is not registered in the EnvoyProxy dynamicModules allowlist.`,
			`DynamicModule: dynamic module "no-sha" has no remote source SHA256 configured.`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := extensionMessages(t, gw+"  dynamicModule: "+tc.modules+"\n"); !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// extensionMessages is every Invalid message of an EnvoyExtensionPolicy
// with spec over extensionObjects.
func extensionMessages(t *testing.T, spec string) []string {
	t.Helper()
	doc := extensionObjects + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" + spec
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	reg := policy.NewRegistry(All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	p := EnvoyExtensionPolicy().Decode(objs[len(objs)-1], &policy.Env{Model: m, Config: extensionsOn(policy.Config{})})
	var out []string
	for _, d := range p.Invalid {
		out = append(out, d.Message)
	}
	return out
}

// TestDynamicModuleWithoutEnvoyProxy: a Gateway with no EnvoyProxy of the
// input in effect has Envoy Gateway's default settings, which register no
// dynamic module (attachEnvoyProxy: an EnvoyProxy named but missing is
// not in its map; MergeEnvoyProxyConfigs with no default spec gives nil;
// buildDynamicModules' registry is then empty). Only Envoy Gateway's own
// Gateways build the policy.
func TestDynamicModuleWithoutEnvoyProxy(t *testing.T) {
	const objects = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg-missing}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: gone, namespace: infra}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg-registered}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: class-proxy, namespace: infra}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other-controller}
spec: {controllerName: example.com/another-controller}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata: {name: class-proxy, namespace: infra}
spec:
  dynamicModules: [{name: mod, source: {local: {path: /opt/mod.so}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: class-names-missing, namespace: infra}
spec: {gatewayClassName: eg-missing, listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: own-missing, namespace: infra}
spec:
  gatewayClassName: eg-registered
  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: gone}}
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: foreign, namespace: infra}
spec: {gatewayClassName: other-controller, listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]}
`
	route := func(parents ...string) string {
		var refs []string
		for _, p := range parents {
			refs = append(refs, "{name: "+p+", namespace: infra}")
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [" + strings.Join(refs, ", ") + "]\n  rules: [{}]\n"
	}
	const unregistered = `DynamicModule: dynamic module "mod" is not registered in the EnvoyProxy dynamicModules allowlist.`
	tests := []struct {
		name, docs, target, want string
	}{
		{"the class names an EnvoyProxy the input lacks", "", "{group: gateway.networking.k8s.io, kind: Gateway, name: class-names-missing}", unregistered},
		{"the Gateway's own EnvoyProxy is missing: its class's is in effect", "", "{group: gateway.networking.k8s.io, kind: Gateway, name: own-missing}", ""},
		{"a route through another controller's Gateway only", route("foreign"), "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}", ""},
		{"a route through both: Envoy Gateway's builds it", route("foreign", "class-names-missing"), "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}", unregistered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := "app"
			if strings.Contains(tc.target, "Gateway,") {
				ns = "infra"
			}
			doc := objects + tc.docs + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: p, namespace: " + ns + "}\nspec:\n  targetRefs: [" + tc.target + "]\n  dynamicModule: [{name: mod}]\n"
			objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			reg := policy.NewRegistry(All()...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
			p := EnvoyExtensionPolicy().Decode(objs[len(objs)-1], &policy.Env{Model: m})
			got := ""
			if len(p.Invalid) > 0 {
				got = p.Invalid[0].Message
			}
			if got != tc.want {
				t.Errorf("invalid = %q, want %q", got, tc.want)
			}
		})
	}
}
