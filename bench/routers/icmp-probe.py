#!/usr/bin/env python3
"""ICMP echo on a fixed schedule, for bench/routers (run inside a lab namespace, as root).

usage: icmp-probe.py TARGET INTERVAL_MS

Sends an echo request to TARGET every INTERVAL_MS, on a fixed schedule whether or not replies
come (ping(8) slows down while nothing answers, which would blur an outage), and prints one line
per echo reply, flushed at once:

    reply SEQ SENT RECEIVED

SEQ counts from 1; SENT and RECEIVED are wall-clock times (seconds since the epoch, the clock
JavaScript's Date.now() reads). Lost requests print nothing. Runs until killed. Standard library only.
"""
import errno
import os
import select
import socket
import struct
import sys
import time

ECHO_REQUEST, ECHO_REPLY = 8, 0
PAYLOAD = struct.Struct("!Qd")  # our sequence number and the send time, echoed back to us


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def echo_request(ident: int, seq: int, sent: float) -> bytes:
    payload = PAYLOAD.pack(seq, sent)
    header = struct.pack("!BBHHH", ECHO_REQUEST, 0, 0, ident, seq & 0xFFFF)
    return struct.pack("!BBHHH", ECHO_REQUEST, 0, checksum(header + payload), ident, seq & 0xFFFF) + payload


def main() -> None:
    target, interval = sys.argv[1], float(sys.argv[2]) / 1000
    ident = os.getpid() & 0xFFFF
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.setblocking(False)
    seq = 0
    next_send = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= next_send:
            seq += 1
            try:
                sock.sendto(echo_request(ident, seq, time.time()), (target, 0))
            except OSError as error:
                # No neighbour yet, or no route: the request is lost, as on a wire.
                if error.errno not in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EAGAIN, errno.ENOBUFS):
                    raise
            next_send += interval
            if next_send <= now:  # fell behind (the machine was busy): skip, never burst
                next_send = now + interval
        readable, _, _ = select.select([sock], [], [], max(0.0, next_send - time.monotonic()))
        if not readable:
            continue
        while True:
            try:
                packet, (source, _) = sock.recvfrom(2048)
            except BlockingIOError:
                break
            received = time.time()
            start = (packet[0] & 0x0F) * 4
            icmp_type, _, _, reply_ident, _ = struct.unpack_from("!BBHHH", packet, start)
            if icmp_type != ECHO_REPLY or reply_ident != ident or source != target:
                continue
            if len(packet) < start + 8 + PAYLOAD.size:
                continue
            reply_seq, sent = PAYLOAD.unpack_from(packet, start + 8)
            sys.stdout.write(f"reply {reply_seq} {sent:.6f} {received:.6f}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
