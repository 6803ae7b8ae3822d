# Makes the fixtures of sqlitefile_test.go with Python's sqlite3 (run in
# this directory: python3 make.py). What each holds is what the test
# expects; see there.
import os, shutil, sqlite3

for f in os.listdir('.'):
    if f.endswith('.db') or f.endswith('.db-wal'):
        os.remove(f)

def text(i, n):
    return ('row %d ' % i) * (n // 6 + 1)

# plain.db: rollback journal, 512-byte pages so that 1000 rows make a
# b-tree three levels deep, values of every serial type, records that
# overflow onto one and onto many pages, an ALTER TABLE column, a
# WITHOUT ROWID table and an INTEGER PRIMARY KEY.
c = sqlite3.connect('plain.db')
c.execute('pragma page_size=512')
c.execute('create table t (id integer primary key, name text not null, n integer, f real, b blob)')
c.execute('create table `quoted` (`id` text PRIMARY KEY, "data" text NOT NULL, [n] int, CONSTRAINT q_pk UNIQUE(`data`))')
c.execute('create table w (k text primary key, v text) without rowid')
rows = []
for i in range(1, 1001):
    n = [0, 1, -1, 127, -128, 32767, 40000, -8388608, 2**31 - 1, 2**40, -2**47, 2**62, None][i % 13]
    rows.append((i, text(i, 3000 if i % 250 == 0 else (20000 if i == 7 else 10)), n, i / 4 if i % 3 else None, bytes([i % 256]) * (i % 5)))
c.executemany('insert into t values (?,?,?,?,?)', rows)
c.execute('insert into quoted values (?,?,?)', ('a', 'first', 1))
c.execute('alter table quoted add column extra text')
c.execute('insert into quoted values (?,?,?,?)', ('b', 'second', 2, 'more'))
c.execute("insert into w values ('k', 'v')")
c.commit()
c.close()

# wal.db with wal.db-wal: WAL mode, never checkpointed; three committed
# transactions (rows 1-100, 101-200, then rows 1-10 updated), then a
# transaction left open whose frames (rows 201-600, large enough to
# spill from a small cache) are in the WAL without a commit frame.
c = sqlite3.connect('wal-src.db', isolation_level=None)
c.execute('pragma page_size=1024')
c.execute('pragma journal_mode=wal')
c.execute('pragma wal_autocheckpoint=0')
c.execute('pragma cache_size=5')
c.execute('create table t (id integer primary key, name text)')
c.execute('begin')
c.executemany('insert into t values (?,?)', [(i, 'first %d' % i) for i in range(1, 101)])
c.execute('commit')
c.execute('begin')
c.executemany('insert into t values (?,?)', [(i, 'second %d' % i) for i in range(101, 201)])
c.execute('commit')
c.execute("update t set name = 'updated ' || id where id <= 10")
c.execute('begin')
c.executemany('insert into t values (?,?)', [(i, 'uncommitted %d ' % i * 5) for i in range(201, 601)])
shutil.copy('wal-src.db', 'wal.db')
shutil.copy('wal-src.db-wal', 'wal.db-wal')
c.execute('rollback')
c.close()
for f in ('wal-src.db', 'wal-src.db-wal', 'wal-src.db-shm'):
    if os.path.exists(f):
        os.remove(f)

# tiny.db with tiny.db-wal, the fuzz target's seed: 512-byte pages, a
# few rows in the main file, one of them overflowing, and one more
# committed in the WAL.
c = sqlite3.connect('tiny-src.db', isolation_level=None)
c.execute('pragma page_size=512')
c.execute('create table t (id text primary key, n int, data text)')
c.execute("insert into t values ('a', 1, 'x'), ('b', -2, null), ('c', 3, ?)", ('y' * 1200,))
c.execute('pragma journal_mode=wal')
c.execute('pragma wal_autocheckpoint=0')
c.execute("insert into t values ('d', 4, 'in the wal')")
shutil.copy('tiny-src.db', 'tiny.db')
shutil.copy('tiny-src.db-wal', 'tiny.db-wal')
c.close()
for f in ('tiny-src.db', 'tiny-src.db-wal', 'tiny-src.db-shm'):
    if os.path.exists(f):
        os.remove(f)

# The oracle: every row of every rowid table as SQLite itself reads it,
# from a throwaway copy (opening a WAL database checkpoints it).
import json, sys, tempfile

def typed(v):
    if v is None:
        return ['null']
    if isinstance(v, int):
        return ['int', str(v)]
    if isinstance(v, float):
        return ['real', repr(v)]
    if isinstance(v, str):
        return ['text', v]
    return ['blob', v.hex()]

def dump(src, out, tables=None):
    with tempfile.TemporaryDirectory() as d:
        for suffix in ('', '-wal'):
            if os.path.exists(src + suffix):
                shutil.copy(src + suffix, os.path.join(d, 'x.db' + suffix))
        c = sqlite3.connect(os.path.join(d, 'x.db'))
        names = tables or [r[0] for r in c.execute("select name from sqlite_schema where type = 'table' and sql not like '%without rowid%' order by name")]
        res = {}
        for t in names:
            res[t] = [[typed(x) for x in r] for r in c.execute('select rowid, * from "%s" order by rowid' % t)]
        c.close()
    with open(out, 'w') as f:
        f.write('{\n')
        for i, t in enumerate(sorted(res)):
            f.write('%s: [\n' % json.dumps(t))
            f.write(',\n'.join(json.dumps(r, ensure_ascii=False) for r in res[t]))
            f.write('\n]%s\n' % (',' if i < len(res) - 1 else ''))
        f.write('}\n')

dump('plain.db', 'plain.json')
dump('wal.db', 'wal.json')
dump('tiny.db', 'tiny.json')
# OpenCode's own databases (../../agents/opencode/testdata/real-e2e),
# decompressed: python3 make.py DIR dumps DIR/opencode.db's session,
# message, part and todo tables into opencode-NAME.json.
for d in sys.argv[1:]:
    dump(os.path.join(d, 'opencode.db'), 'opencode-%s.json' % os.path.basename(d.rstrip('/')), ['session', 'message', 'part', 'todo'])
