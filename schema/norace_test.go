//go:build !race

package schema

// raceDetector is true in a test binary built with -race.
const raceDetector = false
