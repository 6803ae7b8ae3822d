package agents

// Reorder puts the table in the order perm gives (table[perm[i]] first
// for i = 0) until restore is called, for tests that check that nothing
// depends on the table's order.
func Reorder(perm []int) (restore func()) {
	old := table
	t := make([]Agent, len(old))
	for i, p := range perm {
		t[i] = old[p]
	}
	table = t
	return func() { table = old }
}
