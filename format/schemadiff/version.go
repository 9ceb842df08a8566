package schemadiff

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NextVersion returns the version after version for a change of class c:
// breaking bumps the major number, compatible the minor, cosmetic the patch,
// and the numbers after the bumped one restart at 0. version must be
// MAJOR.MINOR.PATCH without prefix or suffix (the versions this package
// derives are all of that form).
func NextVersion(version string, c Class) (string, error) {
	parts := strings.Split(version, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", version)
	}
	var numbers [3]uint64
	for i, part := range parts {
		n, ok := versionNumber(part)
		if !ok {
			return "", fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", version)
		}
		numbers[i] = n
	}
	bumped, ok := map[Class]int{Breaking: 0, Compatible: 1, Cosmetic: 2}[c]
	if !ok {
		return "", fmt.Errorf("unknown change class %q", c)
	}
	if numbers[bumped] == math.MaxUint64 {
		return "", fmt.Errorf("version %q cannot be bumped any further", version)
	}
	numbers[bumped]++
	for i := bumped + 1; i < len(numbers); i++ {
		numbers[i] = 0
	}
	return fmt.Sprintf("%d.%d.%d", numbers[0], numbers[1], numbers[2]), nil
}

// versionNumber parses one semver number: decimal digits, no leading zero.
func versionNumber(s string) (uint64, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
