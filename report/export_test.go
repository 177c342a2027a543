package report

// FixtureDoc and FleetFixture let the external tests (chart_test.go) build
// the fixtures of this package's tests.
var (
	FixtureDoc   = fixtureDoc
	FleetFixture = fleetFixture
)
