# Makes seed.db, the seed of FuzzReadOpenCode and of the hostile tests:
# OpenCode's own tables (their CREATE statements as opencode 1.18.33 wrote
# them) holding a short session copied from real-e2e/work, in 512-byte
# pages, no WAL. Run: python3 make-seed.py DIR, DIR holding the work
# database decompressed (opencode.db and opencode.db-wal).
import os, shutil, sqlite3, sys, tempfile

src = sys.argv[1]
with tempfile.TemporaryDirectory() as d:
    for f in ('opencode.db', 'opencode.db-wal'):
        shutil.copy(os.path.join(src, f), os.path.join(d, f))
    s = sqlite3.connect(os.path.join(d, 'opencode.db'))
    if os.path.exists('seed.db'):
        os.remove('seed.db')
    o = sqlite3.connect('seed.db')
    o.execute('pragma page_size=512')
    for t in ('session', 'message', 'part', 'todo'):
        sql = s.execute("select sql from sqlite_schema where name = ?", (t,)).fetchone()[0]
        o.execute(sql)  # foreign keys are not enforced: the other tables need not exist
    sid = s.execute('select id from session').fetchone()[0]
    o.executemany('insert into session values (' + ','.join('?' * len(s.execute('select * from session').description)) + ')', s.execute('select * from session'))
    msgs = [r[0] for r in s.execute('select id from message order by time_created, id limit 4')]
    for m in msgs:
        o.execute('insert into message values (?,?,?,?,?)', s.execute('select * from message where id = ?', (m,)).fetchone())
        for p in s.execute("select * from part where message_id = ? and data not like '%step-%'", (m,)):
            o.execute('insert into part values (?,?,?,?,?,?)', p)
    o.executemany('insert into todo values (?,?,?,?,?,?,?)', s.execute('select * from todo'))
    o.commit()
    o.execute('vacuum')
    o.close()
    s.close()
