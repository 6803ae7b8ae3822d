# Makes indexed.db, the fixture of index_test.go, with Python's sqlite3
# (run in this directory: python3 make-indexed.py): 512-byte pages so that
# the index b-tree is several levels deep; a part table of 3000 rows over
# 40 sessions, indexed on (session_id, id) as OpenCode indexes it; session
# ids of 1,500 bytes (index entries that overflow their page), a NULL one
# (ordered before text) and one given as an integer (stored as the text
# "12" by the column's affinity: 41 in all), rows that overflow; a
# descending index and a partial one, which are not used.
import os, sqlite3

if os.path.exists('indexed.db'):
    os.remove('indexed.db')
c = sqlite3.connect('indexed.db')
c.execute('pragma page_size=512')
c.execute('create table `part` (`id` text PRIMARY KEY, `session_id` text, `data` text NOT NULL)')
c.execute('create index `part_session_idx` on `part` (`session_id`, `id`)')
c.execute('create table other (k text, v text)')
c.execute('create index other_desc on other (k desc)')
c.execute('create index other_partial on other (v) where v is not null')
def sid(i):
    s = 'ses_%03d' % (i % 40)
    return s + 'x' * 1500 if i % 40 == 7 else s
rows = []
for i in range(3000):
    s = sid(i)
    if i == 11:
        s = None
    if i == 12:
        s = 12
    rows.append(('prt_%05d' % i, s, ('data %d ' % i) * (300 if i % 97 == 0 else 3)))
c.executemany('insert into part values (?,?,?)', rows)
c.executemany('insert into other values (?,?)', [('k%d' % i, 'v%d' % i) for i in range(50)])
c.commit()
c.execute('vacuum')
c.close()
