package kgateway

import (
	"cmp"
	"encoding/json"
	"fmt"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	filelogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	celfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/filters/cel/v3"
	grpclogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/grpc/v3"
	metadatafmtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/formatter/metadata/v3"
	reqwithoutqueryv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/formatter/req_without_query/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// Envoy's access logger and access log filter extension names.
const (
	fileAccessLogName = "envoy.access_loggers.file"
	grpcAccessLogName = "envoy.access_loggers.http_grpc"
	otelAccessLogName = "envoy.access_loggers.open_telemetry"
	celLogFilterName  = "envoy.access_loggers.extension_filters.cel"
)

// accessLogSink is one sink with its filter, and the cluster entry of a gRPC
// sink's service (nil for a file).
func accessLogSink(l AccessLog, in policy.FieldInput, env *policy.Env) (*accesslogv3.AccessLog, *clusterv3.Cluster, error) {
	ns := ""
	if len(in.Namespaces) > 0 {
		ns = in.Namespaces[0]
	}
	http2 := env.Target != "kgateway" // see collectorService
	var (
		name string
		cfg  proto.Message
		cl   *clusterv3.Cluster
	)
	switch {
	case l.FileSink != nil && l.GrpcService != nil:
		return nil, nil, fmt.Errorf("fileSink and grpcService are exclusive")
	case l.FileSink != nil:
		f, err := fileAccessLog(l.FileSink)
		if err != nil {
			return nil, nil, err
		}
		name, cfg = fileAccessLogName, f
	case l.GrpcService != nil:
		g := l.GrpcService
		if g.LogName == "" {
			return nil, nil, fmt.Errorf("grpcService.logName is empty")
		}
		if err := collectorResolves(g.BackendRef.BackendObjectReference, in, env); err != nil {
			return nil, nil, fmt.Errorf("grpcService: %w", err)
		}
		svc, c, err := grpcServiceOf(g.CommonGrpcService, ns, http2)
		if err != nil {
			return nil, nil, fmt.Errorf("grpcService: %w", err)
		}
		name, cl = grpcAccessLogName, c
		cfg = &grpclogv3.HttpGrpcAccessLogConfig{
			CommonConfig: &grpclogv3.CommonGrpcAccessLogConfig{
				LogName: g.LogName, GrpcService: svc, TransportApiVersion: corev3.ApiVersion_V3,
			},
			AdditionalRequestHeadersToLog:   g.AdditionalRequestHeadersToLog,
			AdditionalResponseHeadersToLog:  g.AdditionalResponseHeadersToLog,
			AdditionalResponseTrailersToLog: g.AdditionalResponseTrailersToLog,
		}
	case l.OpenTelemetry != nil:
		o, c, err := otelAccessLog(l.OpenTelemetry, in, env)
		if err != nil {
			return nil, nil, fmt.Errorf("openTelemetry: %w", err)
		}
		name, cfg, cl = otelAccessLogName, o, c
	default:
		return nil, nil, fmt.Errorf("no sink: set fileSink, grpcService or openTelemetry")
	}
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	out := &accesslogv3.AccessLog{Name: name, ConfigType: &accesslogv3.AccessLog_TypedConfig{TypedConfig: a}}
	if l.Filter != nil {
		if out.Filter, err = accessLogFilter(l.Filter); err != nil {
			return nil, nil, fmt.Errorf("filter: %w", err)
		}
	}
	return out, cl, nil
}

// fileAccessLog writes to a path, in a text or JSON format with the
// formatters kgateway registers (%REQ_WITHOUT_QUERY%, %METADATA%).
func fileAccessLog(f *FileSink) (*filelogv3.FileAccessLog, error) {
	out := &filelogv3.FileAccessLog{Path: f.Path}
	var format *corev3.SubstitutionFormatString
	switch {
	case f.StringFormat != nil:
		format = &corev3.SubstitutionFormatString{Format: &corev3.SubstitutionFormatString_TextFormatSource{
			TextFormatSource: &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: *f.StringFormat}}}}
	case f.JSONFormat != nil:
		var m map[string]any
		if err := json.Unmarshal(f.JSONFormat.Raw, &m); err != nil {
			return nil, fmt.Errorf("fileSink.jsonFormat: %w", err)
		}
		st, err := structpb.NewStruct(m)
		if err != nil {
			return nil, fmt.Errorf("fileSink.jsonFormat: %w", err)
		}
		format = &corev3.SubstitutionFormatString{Format: &corev3.SubstitutionFormatString_JsonFormat{JsonFormat: st}}
	default:
		return out, nil
	}
	for _, fm := range []struct {
		name string
		cfg  proto.Message
	}{
		{"envoy.formatter.req_without_query", &reqwithoutqueryv3.ReqWithoutQuery{}},
		{"envoy.formatter.metadata", &metadatafmtv3.Metadata{}},
	} {
		a, err := anypb.New(fm.cfg)
		if err != nil {
			return nil, err
		}
		format.Formatters = append(format.Formatters, &corev3.TypedExtensionConfig{Name: fm.name, TypedConfig: a})
	}
	out.AccessLogFormat = &filelogv3.FileAccessLog_LogFormat{LogFormat: format}
	return out, nil
}

// grpcServiceOf is the Envoy gRPC client of a log sink or collector, with
// the cluster entry of its backend (HTTP/2 when http2).
func grpcServiceOf(g CommonGrpcService, ns string, http2 bool) (*corev3.GrpcService, *clusterv3.Cluster, error) {
	name, cl := serviceCluster(g.BackendRef.BackendObjectReference, ns, http2)
	eg := &corev3.GrpcService_EnvoyGrpc{ClusterName: name}
	if g.Authority != nil {
		eg.Authority = *g.Authority
	}
	if g.MaxReceiveMessageLength != nil {
		eg.MaxReceiveMessageLength = wrapperspb.UInt32(uint32(max(*g.MaxReceiveMessageLength, 0)))
	}
	if g.SkipEnvoyHeaders != nil {
		eg.SkipEnvoyHeaders = *g.SkipEnvoyHeaders
	}
	svc := &corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: eg}}
	if g.Timeout != nil {
		t, err := duration("timeout", *g.Timeout)
		if err != nil {
			return nil, nil, err
		}
		svc.Timeout = t
	}
	for _, h := range g.InitialMetadata {
		hv := &corev3.HeaderValue{Key: h.Key}
		if h.Value != nil {
			hv.Value = *h.Value
		}
		svc.InitialMetadata = append(svc.InitialMetadata, hv)
	}
	if rp := g.RetryPolicy; rp != nil {
		r := &corev3.RetryPolicy{}
		if rp.NumRetries != nil {
			r.NumRetries = wrapperspb.UInt32(uint32(max(*rp.NumRetries, 0)))
		}
		if bo := rp.RetryBackOff; bo != nil {
			base, err := duration("retryPolicy.retryBackOff.baseInterval", bo.BaseInterval)
			if err != nil {
				return nil, nil, err
			}
			r.RetryBackOff = &corev3.BackoffStrategy{BaseInterval: base}
			if bo.MaxInterval != nil {
				mx, err := duration("retryPolicy.retryBackOff.maxInterval", *bo.MaxInterval)
				if err != nil {
					return nil, nil, err
				}
				// kgateway drops a maximum below the base interval.
				if mx.AsDuration() >= base.AsDuration() {
					r.RetryBackOff.MaxInterval = mx
				}
			}
		}
		svc.RetryPolicy = r
	}
	return svc, cl, nil
}

// accessLogFilter is a single filter, or an and/or of filters.
func accessLogFilter(f *AccessLogFilter) (*accesslogv3.AccessLogFilter, error) {
	list := func(fs []FilterType) ([]*accesslogv3.AccessLogFilter, error) {
		out := make([]*accesslogv3.AccessLogFilter, 0, len(fs))
		for i := range fs {
			t, err := filterType(&fs[i])
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	switch {
	case f.OrFilter != nil:
		fs, err := list(f.OrFilter)
		if err != nil {
			return nil, fmt.Errorf("orFilter: %w", err)
		}
		return &accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_OrFilter{OrFilter: &accesslogv3.OrFilter{Filters: fs}}}, nil
	case f.AndFilter != nil:
		fs, err := list(f.AndFilter)
		if err != nil {
			return nil, fmt.Errorf("andFilter: %w", err)
		}
		return &accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_AndFilter{AndFilter: &accesslogv3.AndFilter{Filters: fs}}}, nil
	}
	return filterType(&f.FilterType)
}

var comparisonOps = map[string]accesslogv3.ComparisonFilter_Op{
	"EQ": accesslogv3.ComparisonFilter_EQ,
	"GE": accesslogv3.ComparisonFilter_GE,
	"LE": accesslogv3.ComparisonFilter_LE,
}

func comparison(field string, c *ComparisonFilter) (*accesslogv3.ComparisonFilter, error) {
	op, ok := comparisonOps[c.Op]
	if !ok {
		return nil, fmt.Errorf("%s.op %q is not one of EQ, GE, LE", field, c.Op)
	}
	return &accesslogv3.ComparisonFilter{Op: op, Value: &corev3.RuntimeUInt32{DefaultValue: uint32(max(c.Value, 0))}}, nil
}

// filterType is one access log filter.
func filterType(t *FilterType) (*accesslogv3.AccessLogFilter, error) {
	out := &accesslogv3.AccessLogFilter{}
	switch {
	case t.StatusCodeFilter != nil:
		c, err := comparison("statusCodeFilter", t.StatusCodeFilter)
		if err != nil {
			return nil, err
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_StatusCodeFilter{StatusCodeFilter: &accesslogv3.StatusCodeFilter{Comparison: c}}
	case t.DurationFilter != nil:
		c, err := comparison("durationFilter", t.DurationFilter)
		if err != nil {
			return nil, err
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_DurationFilter{DurationFilter: &accesslogv3.DurationFilter{Comparison: c}}
	case t.NotHealthCheckFilter != nil:
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_NotHealthCheckFilter{NotHealthCheckFilter: &accesslogv3.NotHealthCheckFilter{}}
	case t.TraceableFilter != nil:
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_TraceableFilter{TraceableFilter: &accesslogv3.TraceableFilter{}}
	case t.HeaderFilter != nil:
		h, err := headerMatchMatcher(t.HeaderFilter.Header)
		if err != nil {
			return nil, fmt.Errorf("headerFilter: %w", err)
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_HeaderFilter{HeaderFilter: &accesslogv3.HeaderFilter{Header: h}}
	case t.ResponseFlagFilter != nil:
		flags := responseFlags(t.ResponseFlagFilter.Flags)
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_ResponseFlagFilter{ResponseFlagFilter: &accesslogv3.ResponseFlagFilter{Flags: flags}}
	case t.GrpcStatusFilter != nil:
		g := &accesslogv3.GrpcStatusFilter{}
		for _, s := range t.GrpcStatusFilter.Statuses {
			st, ok := accesslogv3.GrpcStatusFilter_Status_value[s]
			if !ok {
				return nil, fmt.Errorf("grpcStatusFilter: unknown status %q", s)
			}
			g.Statuses = append(g.Statuses, accesslogv3.GrpcStatusFilter_Status(st))
		}
		if t.GrpcStatusFilter.Exclude != nil {
			g.Exclude = *t.GrpcStatusFilter.Exclude
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_GrpcStatusFilter{GrpcStatusFilter: g}
	case t.CELFilter != nil:
		a, err := anypb.New(&celfilterv3.ExpressionFilter{Expression: t.CELFilter.Match})
		if err != nil {
			return nil, err
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_ExtensionFilter{ExtensionFilter: &accesslogv3.ExtensionFilter{
			Name: celLogFilterName, ConfigType: &accesslogv3.ExtensionFilter_TypedConfig{TypedConfig: a}}}
	case t.RuntimeFilter != nil:
		r, err := runtimeFilter(t.RuntimeFilter)
		if err != nil {
			return nil, err
		}
		out.FilterSpecifier = &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: r}
	default:
		return nil, fmt.Errorf("no filter type set")
	}
	return out, nil
}

// fractionDenominators are the denominators a FractionalPercent names.
var fractionDenominators = map[string]typev3.FractionalPercent_DenominatorType{
	"HUNDRED": typev3.FractionalPercent_HUNDRED, "TEN_THOUSAND": typev3.FractionalPercent_TEN_THOUSAND,
	"MILLION": typev3.FractionalPercent_MILLION,
}

// runtimeFilter is the runtime key, its sampled fraction (out of a
// hundred unless the denominator says otherwise) and its randomness source.
func runtimeFilter(r *RuntimeFilter) (*accesslogv3.RuntimeFilter, error) {
	out := &accesslogv3.RuntimeFilter{RuntimeKey: r.RuntimeKey}
	if p := r.PercentSampled; p != nil {
		out.PercentSampled = &typev3.FractionalPercent{Numerator: uint32(max(p.Numerator, 0))}
		if p.Denominator != nil {
			d, ok := fractionDenominators[*p.Denominator]
			if !ok {
				return nil, fmt.Errorf("runtimeFilter.percentSampled.denominator %q is not one of HUNDRED, TEN_THOUSAND, MILLION", *p.Denominator)
			}
			out.PercentSampled.Denominator = d
		}
	}
	if r.UseIndependentRandomness != nil {
		out.UseIndependentRandomness = *r.UseIndependentRandomness
	}
	return out, nil
}

// responseFlagCodes are Envoy's response flags by their long names.
// Envoy's filter takes only the short codes: kgateway passes a long name
// through, which Envoy rejects, so gwpol writes its code instead (listed
// in testdata/conformance-divergences.txt).
var responseFlagCodes = map[string]string{
	"FailedLocalHealthCheck": "LH", "NoHealthyUpstream": "UH", "UpstreamRequestTimeout": "UT",
	"LocalReset": "LR", "UpstreamRemoteReset": "UR", "UpstreamConnectionFailure": "UF",
	"UpstreamConnectionTermination": "UC", "UpstreamOverflow": "UO", "NoRouteFound": "NR",
	"DelayInjected": "DI", "FaultInjected": "FI", "RateLimited": "RL",
	"UnauthorizedExternalService": "UAEX", "RateLimitServiceError": "RLSE",
	"DownstreamConnectionTermination": "DC", "UpstreamRetryLimitExceeded": "URX",
	"StreamIdleTimeout": "SI", "InvalidEnvoyRequestHeaders": "IH", "DownstreamProtocolError": "DPE",
	"UpstreamMaxStreamDurationReached": "UMSDR", "ResponseFromCacheFilter": "RFCF",
	"NoFilterConfigFound": "NFCF", "DurationTimeout": "DT", "UpstreamProtocolError": "UPE",
	"NoClusterFound": "NC", "OverloadManagerTerminated": "OM", "DnsResolutionFailed": "DF",
	"DropOverload": "DO", "DownstreamRemoteReset": "DR", "UnconditionalDropOverload": "UDO",
}

// responseFlags are the flags as Envoy's short codes. Any other flag is
// kept as written, as kgateway keeps every flag (listenerpolicy/common.go:
// translateFilter; the CRD takes any string), so it is no error of the
// policy: Envoy refuses it, which is render's finding at the setting (a
// fragment is held to Envoy's rules), and the policy stays Accepted.
func responseFlags(flags []string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = cmp.Or(responseFlagCodes[f], f)
	}
	return out
}

// headerMatchMatcher is a Gateway API header match as an Envoy header
// matcher: the value exactly, or as a regular expression.
func headerMatchMatcher(h gwv1.HTTPHeaderMatch) (*routev3.HeaderMatcher, error) {
	sm := &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: h.Value}}
	// The type says how the value matches: Exact (the default) or
	// RegularExpression, the CRD's enum; any other is refused, not read
	// as Exact.
	switch {
	case h.Type == nil || *h.Type == gwv1.HeaderMatchExact:
	case *h.Type == gwv1.HeaderMatchRegularExpression:
		sm.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: h.Value}}
	default:
		return nil, fmt.Errorf("header %s: type %q is not Exact or RegularExpression", h.Name, *h.Type)
	}
	return &routev3.HeaderMatcher{Name: string(h.Name), HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: sm}}, nil
}
