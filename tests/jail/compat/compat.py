# Everyday Python in the jail: threads, subprocess, asyncio, sqlite3, json, re.
import asyncio
import json
import re
import sqlite3
import subprocess
import sys
import threading

results = []
lock = threading.Lock()


def work(n):
    with lock:
        results.append(sum(range(n)))


threads = [threading.Thread(target=work, args=(i * 1000,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()

child = subprocess.run([sys.executable, "-c", "print('child ok')"], capture_output=True,
                       text=True, check=True)


async def main():
    async def one(i):
        await asyncio.sleep(0.001)
        return i * i

    proc = await asyncio.create_subprocess_exec("/bin/echo", "async ok",
                                                stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return sum(await asyncio.gather(*(one(i) for i in range(10)))), out.decode().strip()


squares, echoed = asyncio.run(main())
db = sqlite3.connect(":memory:")
db.execute("create table t (k text, v integer)")
db.executemany("insert into t values (?, ?)", [("a", 1), ("b", 2), ("c", 3)])
total = db.execute("select sum(v) from t").fetchone()[0]
words = re.findall(r"\b\w+ok\b", "xok yok z")
print(json.dumps({"threads": len(results), "child": child.stdout.strip(), "squares": squares,
                  "echoed": echoed, "sqlite": total, "re": words}, sort_keys=True))
