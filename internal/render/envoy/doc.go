// Package envoy is the render stage: it turns gwpol's IR (internal/merge)
// into Envoy xDS resources built as go-control-plane v3 types — Listeners,
// RouteConfigurations and Clusters per Gateway, or one static Bootstrap per
// Gateway — validated with ValidateAll and serialised as protojson's JSON
// (proto field names), byte for byte, or as YAML, by the writers of
// internal/render/xdsjson; output.go assembles the document from them,
// a wave of resources at a time.
//
// It is the only package besides a policy kind's own render files that
// imports go-control-plane. It is a view: it imports merge, topology,
// policy, model, parallel, render/xdsjson and diag (never status, explain, lint or
// pipeline), and reaches policy kinds only
// through policy.Renderer: a kind describes its Envoy configuration as
// neutral fragments and this package types, places and validates them.
//
// # Structure and names
//
// Every resource is named as the render target names it
// (policy.Target.Names, policy.XDSNames: its family declares the names
// its controller's translator gives, and cites that source), so that
// output can be diffed against a live config_dump:
//
//   - one Listener per port (XDSNames.Listener), bound to [::]:<port>;
//   - HTTP listeners on a port share one filter chain and one
//     RouteConfiguration, both named as the Listener;
//   - each HTTPS listener has its own filter chain and RouteConfiguration
//     (XDSNames.HTTPSChain), matched by SNI when the listener has a
//     hostname (a tls_inspector listener filter is added then);
//   - one VirtualHost per distinct hostname (XDSNames.VirtualHost); on a
//     shared port the most specific listener owns a hostname;
//   - Routes (XDSNames.Route) in Gateway API precedence order, their
//     position in it part of the name;
//   - a TCP or TLS route's filter chain (XDSNames.StreamChain), and a
//     cluster of a rule's own (XDSNames.RuleCluster, see ruleclusters.go).
//
// # Kinds that override whole
//
// A kind whose more specific policy replaces the less specific ones whole
// (policy.WholeOverrider) is placed on each Route, as
// merge.Result.Routed finds it for the rule and listener — never on the
// VirtualHost or RouteConfiguration, where Envoy would let a Gateway's
// configuration show through a route whose own policy hides it. Routes
// reached by the same policies share one rendering (routedScope). What a
// field configures per route — naming the route or the listener serving
// it, as a global rate limit's descriptors and domain may —
// a fragment builds in its PerRoute, called for each route with the
// route's policy.RouteSite (perroute.go).
//
// # Clusters
//
// A Service backend port is the cluster `kube_<namespace>_<service>_<port>`;
// any other backend kind (one whose kind builds its cluster,
// policy.BackendClusterer) is
// `<kind lower-cased>_<namespace>_<name>_<port or 0>`, e.g.
// `backend_default_oauth-provider_0`. In xDS output clusters are EDS
// (endpoints come from the control plane over ADS). In a bootstrap, where
// nothing serves EDS, Service clusters are STRICT_DNS to
// `<service>.<namespace>.svc.cluster.local:<port>` and other kinds are
// STATIC with no endpoints (Envoy answers 503 until they are filled in).
// A Gateway whose spec.tls.backend names a client certificate gets its
// own variant of each TLS cluster (XDSNames.ClientCertCluster), presenting
// the certificate, and its routes send to it (clientcert.go).
// Fragments may ask for clusters by name only (plus options such as HTTP/2);
// a `kube_…` name is completed here with the discovery settings above.
//
// # Secrets
//
// gwpol never reads Secret data, so nothing secret is inlined. TLS
// certificates of HTTPS listeners are referenced through SDS by the name
// `secret/<namespace>/<name>` — over ADS in xDS output, and in a bootstrap
// from the file /etc/envoy/sds/<namespace>/<name>.yaml, which the operator
// provides (a DiscoveryResponse holding one tls_certificate Secret). Policy
// renderers use the same conventions for values that live in Secrets.
//
// # Failing closed
//
// A backendRef that does not resolve, or that the controller managing the
// Gateway refuses (its route validation, policy.RouteVerdict.Refused),
// answers 500 for its share of the rule's requests: under a target with
// Target.Blackhole it stays in the route as BlackholeCluster, a cluster
// nothing defines (cluster_not_found_response_code 500); under one with
// Target.InvalidShare the weights of all such backendRefs go to the
// target's InvalidShare cluster, first among the weighted clusters; under
// the others it is left out. A rule none of whose backends takes traffic
// answers 500 (direct_response). A rule the controller's validation
// drops has no route (its index is kept), or, where the controller still
// answers it (a 500 for filters it refuses, policy.RouteVerdict), a
// direct response. A Gateway no controller in the input manages (the
// input has GatewayClasses, none its own) is not rendered
// (Output.Unmanaged). A rule made unusable by its policy references
// (attach.Result.Broken) answers 500, or 503 when the broken kind fails
// closed. An invalid policy replaces the resource it merges into, the
// 500 carrying the target's body (XDSNames.InvalidBody): a Route keeps
// its name and match; a VirtualHost keeps its name and domains with one
// catch-all route; a RouteConfiguration gets one `default` VirtualHost
// for `*`. Under Target.BlackholesInvalidBackendPolicy the cluster of a
// backend an invalid policy targets becomes a STATIC cluster without
// endpoints (Envoy answers 503); other targets leave the invalid policy
// out.
// A policy field the render target cannot express (a capability the
// target lacks) is reported as GWP404 and the resources it applies to
// answer 503 with a body naming the policy and field. Replaced resources
// carry no metadata and no typed_per_filter_config: nothing is half-applied.
//
// # Generated writers
//
// typedwriters_gen.go holds, for each xDS message type reachable through
// message fields from the resources written (not through Any), a JSON
// writer (writeTyped, the writers' xdsjson.Typed) and an Any walk
// (eachAnyTyped, behind eachAny) that read the Go struct instead of
// asking protobuf reflection about every field the type declares.
// genwriters.go makes it from the descriptors; they write what the
// reflective writer writes, byte for byte (TestWriterMatchesProtojsonOnRenders
// on every render, FuzzTypedWriter, BenchmarkTypedWriter and
// BenchmarkEachAny beside them), and TestTypedWritersAreCurrent fails when
// go-control-plane has moved under them.
package envoy

//go:generate go run genwriters.go
