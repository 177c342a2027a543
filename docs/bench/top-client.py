#!/usr/bin/env python3
"""top-client: drive a local HTTP server for `seccompbench top`'s service
checks (docs/top.md, "Checking top on services"): one new TCP connection per
request, GET PATH over HTTP/1.0, read the reply to its end. Runs for
SECONDS (a bound on time, so it always stops by itself) and prints the
number of requests completed and the wall seconds taken. Only loopback
addresses are accepted.

Usage: top-client.py PORT SECONDS [PATH]
"""
import socket
import sys
import time


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    path = sys.argv[3] if len(sys.argv) > 3 else "/f.bin"
    req = ("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" % path).encode()
    n = 0
    start = time.monotonic()
    end = start + seconds
    while time.monotonic() < end:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(req)
            while s.recv(65536):
                pass
        n += 1
    print(n, "%.3f" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
