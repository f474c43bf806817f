import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(float(sys.argv[2]))
c, a = s.accept(); data = b""
c.settimeout(float(sys.argv[2]))
while True:
    b = c.recv(65536)
    if not b: break
    data += b
c.close()
open(sys.argv[3], "wb").write(data)
print("from", a, len(data), "bytes; first line:", data.split(b"\n")[0])
print("records:", [l.split(b" ")[1] for l in data.split(b"\n") if l.startswith(b"@FL1")])
