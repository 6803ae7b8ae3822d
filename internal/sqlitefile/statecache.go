package sqlitefile

import "sync"

// StateCache keeps what a reader made of a database (a session table,
// say) while the database's files stay as they are (DB.StateKey), for
// the few databases read last: reading every session of a database, as a
// full search index does, would otherwise read the same table once per
// session, the square of its sessions. What it keeps is shared: read
// only. The zero value is ready.
type StateCache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// maxStateCached bounds the databases a StateCache keeps.
const maxStateCached = 8

// Get returns read(db), made once while db's state holds; a database
// whose state cannot be told is read every time.
func (c *StateCache[T]) Get(db *DB, read func(*DB) (T, error)) (T, error) {
	key := db.StateKey()
	if key == "" {
		return read(db)
	}
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := read(db)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxStateCached {
		c.m = map[string]T{}
	}
	c.m[key] = v
	c.mu.Unlock()
	return v, nil
}
