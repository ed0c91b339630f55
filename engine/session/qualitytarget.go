package session

import "errors"

// ErrNoServer is a quality check of a launch whose server has not been
// started: a probe asks a running server, it does not launch one.
var ErrNoServer = errors.New("start the server in the Launch tab first, or choose an existing endpoint or the demo")

// QualityTarget reads the input into where a quality probe asks, by the
// rules a run's target is read with (Options): an endpoint's address and
// key, the demo's simulator with the Launch flags (DemoArgs, so the probe
// answers as the demo run would, lossy flags and all), or the server a
// Launch page started (its address, key, served model and, on a remote
// rig, its SSH dialer). A launch not started yet is ErrNoServer; an input
// of the wrong kind is Options' *rundoc.FieldError.
func (in TargetInput) QualityTarget() (QualityTarget, error) {
	if in.Kind == Launch && in.Server == nil {
		return QualityTarget{}, ErrNoServer
	}
	o, err := in.Options(Launching{})
	if err != nil {
		return QualityTarget{}, err
	}
	switch in.Kind {
	case Endpoint:
		return QualityTarget{Endpoint: o.Endpoint, APIKey: o.APIKey}, nil
	case Demo:
		return QualityTarget{Demo: true, DemoArgs: DemoArgs(in.Launch)}, nil
	}
	s := in.Server
	return QualityTarget{Endpoint: s.Endpoint, APIKey: s.APIKey, Model: s.Model, Dial: s.Dial}, nil
}
