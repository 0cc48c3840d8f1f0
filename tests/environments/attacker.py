#!/usr/bin/env python3
"""The other user of tests/environments/two_users.rs: runs as a second account in a folder the
victim works in, and until told to stop (STOP exists) does, in a loop, what the hostile-neighbour
trial did by hand:

- sprays links to the victim's files under every temporary name a simreel process could use
  (`<file>.<pid>.tmp` for the process ids about to be given out, beside every file it sees);
- plants links under the names simreel writes and reads back (frames, GIFs, manifests, reports,
  goldens, locks, snapshots) and replaces files the victim wrote with links to the victim's;
- swaps each folder it can for a link to one of the victim's folders, and back.

It writes what it did to STATS (JSON) when it stops.

usage: attacker.py SHARED VICTIM_HOME STOP STATS
"""

import json
import os
import sys
import threading
import time

shared, home, stop, stats_file = sys.argv[1:5]
targets = [
    os.path.join(home, ".bashrc"),
    os.path.join(home, ".ssh", "id_ed25519"),
    os.path.join(home, ".ssh", "authorized_keys"),
    os.path.join(home, "Pictures", "holiday.png"),
    os.path.join(home, ".local", "share", "planted", "evil.png"),
]
folders = [os.path.join(home, ".ssh"), os.path.join(home, "Pictures"), os.path.join(home, ".local", "share"), home]
# the names simreel writes or reads back, planted wherever they are not yet
names = [
    "frame_0000.png", "frame_0001.png", "frame_0004.png", "manifest.json", ".simreel.lock", "tiny.gif", "tiny.apng",
    "summary.json", "report.html", "junit.xml", "summary.md", "report.json", "frame_0000.state.txt", "a.png", "b.png",
    "button.png", "button.new.png", "frame_0012.state", "shard-1-of-2.json", "shard-2-of-2.json",
]
stats = {"spray_links": 0, "planted_links": 0, "replaced_files": 0, "swaps": 0, "rounds": 0}


def last_pid():
    try:
        with open("/proc/sys/kernel/ns_last_pid") as f:
            return int(f.read())
    except OSError:
        return 0


def link(target, at):
    try:
        os.symlink(target, at)
        return True
    except OSError:
        return False


def walk():
    dirs, files = [], []
    for d, ds, fs in os.walk(shared, followlinks=False):
        ds[:] = [x for x in ds if ".swap-" not in x]
        dirs.append(d)
        files.extend(os.path.join(d, f) for f in fs if not f.endswith(".tmp"))
    return dirs, files


def swapper():
    """Folders swapped for links to the victim's folders, and back, as fast as it can."""
    n = 0
    dirs = []
    while not os.path.exists(stop):
        if n % 20 == 0:
            dirs = [d for d in walk()[0][1:] if not os.path.islink(d)]
        n += 1
        for i, d in enumerate(dirs):
            aside = "%s.swap-%d" % (d, n)
            try:
                os.rename(d, aside)
            except OSError:
                continue
            made = link(folders[(i + n) % len(folders)], d)
            stats["swaps"] += 1
            time.sleep(0.0002)
            if made:
                try:
                    os.unlink(d)
                except OSError:
                    pass
            try:
                os.rename(aside, d)
            except OSError:
                pass
        # a breath between sweeps, so that the victim's commands get far enough to write
        time.sleep(0.02)


swapping = threading.Thread(target=swapper)
swapping.start()
n = 0
while not os.path.exists(stop):
    n += 1
    stats["rounds"] += 1
    dirs, files = walk()
    pid = last_pid()
    pids = range(pid + 1, pid + 8) if pid else range(0)
    # the temporary-name spray: links under `<file>.<pid>.tmp` beside every file, for the next pids
    for i, f in enumerate(files):
        for p in pids:
            if link(targets[(i + p) % len(targets)], "%s.%d.tmp" % (f, p)):
                stats["spray_links"] += 1
    # links under the names simreel writes, in every folder
    for i, d in enumerate(dirs):
        for j, name in enumerate(names):
            at = os.path.join(d, name)
            if not os.path.lexists(at) and link(targets[(i + j) % len(targets)], at):
                stats["planted_links"] += 1
            if link(targets[(i + j) % len(targets)], at + ".%d.tmp" % (pid + 1)):
                stats["spray_links"] += 1
    # files the victim wrote replaced by links to the victim's files (every few rounds)
    if n % 3 == 0:
        for i, f in enumerate(files):
            if f.endswith((".png", ".json", ".state", ".gif")) and not os.path.islink(f):
                tmp = f + ".swap-r"
                if link(targets[i % len(targets)], tmp):
                    try:
                        os.rename(tmp, f)
                        stats["replaced_files"] += 1
                    except OSError:
                        try:
                            os.unlink(tmp)
                        except OSError:
                            pass
    # the sprayed links of pids gone by are cleared, so listings stay short
    for d in dirs:
        try:
            for e in os.scandir(d):
                if e.is_symlink() and e.name.endswith(".tmp"):
                    os.unlink(e.path)
        except OSError:
            pass

swapping.join()
with open(stats_file, "w") as f:
    json.dump(stats, f)
