#!/usr/bin/env python3
"""The stand-in lab machine's power switch: sends one command to a QEMU monitor listening on
127.0.0.1:PORT (`-monitor tcp:127.0.0.1:PORT,server,nowait`) and keeps the connection open a
moment, since QEMU drops a command whose connection closes at once.

usage: qemu-monitor.py PORT COMMAND...   (e.g. qemu-monitor.py 47011 system_reset)
"""
import socket
import sys
import time

if len(sys.argv) < 3:
    sys.exit(__doc__)
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as s:
    s.sendall((" ".join(sys.argv[2:]) + "\n").encode())
    time.sleep(1)
