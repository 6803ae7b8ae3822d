package claude

import "slices"

// mainThread picks the records of the main thread, oldest first. When
// the file's lines are linked by parentUuid, that is the chain of parents
// from the newest user or assistant line (a rewind leaves the abandoned
// branch off it); a compaction boundary links on through
// logicalParentUuid. A parent that cannot be found (its line was skipped)
// continues from the line before. Files without links are read in order.
//
// relink maps the head of a partial compaction's preserved segment to its
// anchor: the walk goes from the head to the anchor (the summary and the
// boundary), and when that branch ends, on from the head's own parent,
// so that the turns before the compaction stay on the thread as they do
// after a full one.
func mainThread(records []*record, relink map[string]string) []*record {
	byUUID := make(map[string]*record, len(records))
	for _, r := range records {
		if r.uuid != "" {
			byUUID[r.uuid] = r
		}
	}
	linked := false
	for _, r := range records {
		if r.parent != "" && r.parent != r.uuid && byUUID[r.parent] != nil {
			linked = true
			break
		}
	}
	if !linked {
		return records
	}
	var leaf *record
	for i := len(records) - 1; i >= 0; i-- {
		if r := records[i]; r.uuid != "" && (r.typ == recUser || r.typ == recAssistant) {
			leaf = r
			break
		}
	}
	if leaf == nil {
		return records
	}
	visited := map[*record]bool{}
	var chain []*record
	var resume []string // parents of relinked heads, to walk on from
	budget := 4*len(records) + 16
	for cur := leaf; cur != nil && budget > 0; budget-- {
		if visited[cur] {
			// This branch joins one walked already: go on from a
			// relinked head's own parent, if one waits.
			cur = nil
			for cur == nil && len(resume) > 0 {
				cur, resume = byUUID[resume[len(resume)-1]], resume[:len(resume)-1]
			}
			if cur == nil || visited[cur] {
				break
			}
		}
		visited[cur] = true
		chain = append(chain, cur)
		next := cur.parent
		if next == "" {
			next = cur.logicalParent
		}
		if anchor, ok := relink[cur.uuid]; ok && byUUID[anchor] != nil {
			if next != "" && len(resume) < maxQueued {
				resume = append(resume, next)
			}
			next = anchor
		}
		if next == "" {
			for next == "" && len(resume) > 0 {
				next, resume = resume[len(resume)-1], resume[:len(resume)-1]
			}
			if next == "" {
				break
			}
		}
		if p := byUUID[next]; p != nil {
			cur = p
			continue
		}
		// The parent's line is missing: go on from the line before.
		cur = nil
		for i := int(chain[len(chain)-1].idx) - 1; i >= 0 && budget > 0; i, budget = i-1, budget-1 {
			if r := records[i]; !visited[r] {
				cur = r
				break
			}
		}
	}
	// A tool's result may hang off the assistant line that called it
	// rather than continue the chain (parallel calls): a line that only
	// answers tool calls, whose parent is on the thread, belongs to it.
	for _, r := range records {
		if !visited[r] && r.onlyResults {
			if p := byUUID[r.parent]; p != nil && visited[p] {
				chain = append(chain, r)
			}
		}
	}
	slices.SortFunc(chain, func(a, b *record) int { return int(a.idx - b.idx) })
	return chain
}
