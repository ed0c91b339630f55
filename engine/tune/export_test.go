package tune

// TargetOf is targetOf, for the tests of the interface dimension.
var TargetOf = (*Runner).targetOf
