# Makes seed.db, the seed of FuzzReadCrush, of the hostile tests and of
# capture's session-roots test: Crush's sessions and messages tables
# (their CREATE statements as Crush v0.90.0 wrote them, comments and all)
# holding the first turn of real-e2e/work, in 512-byte pages. Run:
# python3 make-seed.py WORK.db, WORK.db being real-e2e/work/crush.db.gz
# decompressed.
import os, sqlite3, sys

s = sqlite3.connect(sys.argv[1])
if os.path.exists('seed.db'):
    os.remove('seed.db')
o = sqlite3.connect('seed.db')
o.execute('pragma page_size=512')
for t in ('sessions', 'messages'):
    o.execute(s.execute("select sql from sqlite_schema where name = ?", (t,)).fetchone()[0])
cols = lambda t: len(s.execute('select * from ' + t).description)
o.executemany('insert into sessions values (' + ','.join('?' * cols('sessions')) + ')', s.execute('select * from sessions'))
rows = s.execute('select * from messages order by created_at, rowid limit 8').fetchall()
o.executemany('insert into messages values (' + ','.join('?' * cols('messages')) + ')', rows)
o.commit()
o.execute('vacuum')
o.close()
