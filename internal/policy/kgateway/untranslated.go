package kgateway

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.Untranslator = Kind{}

// ec2Discovery is why a kgateway Backend's EC2 instance selection has no
// effect offline.
const ec2Discovery = "kgateway's EC2 discovery (enableAwsEc2Discovery) finds the instances (filters) and the address of each " +
	"(addressType) at run time through the AWS API and serves them as the cluster's endpoints over EDS; offline there are no " +
	"instances, so gwpol writes the Backend's EDS cluster without endpoints, as kgateway writes the cluster itself"

// UntranslatedFields implements policy.Untranslator: the settings of
// kgateway's objects that only act at run time, outside the config
// kgateway writes (GWP406 where they are set).
func (Kind) UntranslatedFields() []policy.UntranslatedField {
	backend := model.GroupKind{Group: Group, Kind: KindBackend}
	return []policy.UntranslatedField{
		{Kind: backend, Path: "spec.aws.ec2.filters", Reason: ec2Discovery},
		{Kind: backend, Path: "spec.aws.ec2.addressType", Reason: ec2Discovery},
	}
}
