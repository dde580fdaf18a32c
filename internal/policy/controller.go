package policy

// Controller is what a controller family declares about the controller it
// emulates, for the generic stages that must behave as that controller
// does without naming it: status reads which conditions it writes,
// explain how it words what it does. A family package exports its
// Controller and internal/pipeline registers it (Registry.AddControllers);
// no generic package holds a controllerName.
type Controller struct {
	// Name is the controllerName of the controller's GatewayClasses.
	Name string
	// Title is how messages name the controller ("kgateway").
	Title string
	// RenderTarget is the render target whose data plane the controller
	// programs (render/envoy's Targets): the target render infers for its
	// Gateways.
	RenderTarget string
	// Default: the controller status reports for when the configuration
	// names none (config controllerName).
	Default bool
	// ExtraConditions: it adds conditions of its own to the Gateway API's —
	// a Gateway's ResolvedRefs (and InsecureFrontendValidationMode), its
	// GatewayReplaced and ListenerReplaced, a route's Programmed and its
	// rules' conditions (kgateway).
	ExtraConditions bool
	// ReplacesInvalidWhole: a route rule an invalid policy merges into is
	// replaced whole by a direct response (500), none of what the route
	// configures kept (kgateway); otherwise the controller answers 500
	// and keeps what its kinds say (InvalidKeeper).
	ReplacesInvalidWhole bool
}

// AddControllers registers the controllers of the families the pipeline
// lists.
func (r *Registry) AddControllers(cs ...Controller) { r.controllers = append(r.controllers, cs...) }

// Controller is the registered controller of a controllerName.
func (r *Registry) Controller(name string) (Controller, bool) {
	for _, c := range r.controllers {
		if c.Name == name {
			return c, true
		}
	}
	return Controller{}, false
}

// DefaultController is the controller to report for when the
// configuration names none: the one registered as Default (the zero
// Controller when none is).
func (r *Registry) DefaultController() Controller {
	for _, c := range r.controllers {
		if c.Default {
			return c
		}
	}
	return Controller{}
}
