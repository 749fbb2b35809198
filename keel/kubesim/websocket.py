"""Just enough RFC 6455 to stand in for virt-api's VNC and serial-console websockets.

The server answers the upgrade with the subprotocol the client offered (KubeVirt speaks
`plain.kubevirt.io`), optionally sends a greeting (an RFB version line for VNC), then echoes
every data frame back, answers pings and completes the close handshake.
"""
import base64
import hashlib
import struct

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def is_upgrade(headers):
    return ("websocket" in (headers.get("Upgrade") or "").lower()
            and headers.get("Sec-WebSocket-Key") is not None)


def accept(handler, greeting=None):
    key = handler.headers["Sec-WebSocket-Key"].strip().encode()
    token = base64.b64encode(hashlib.sha1(key + _GUID).digest()).decode()
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", token)
    offered = [p.strip() for p in (handler.headers.get("Sec-WebSocket-Protocol") or "").split(",")
               if p.strip()]
    if offered:
        handler.send_header("Sec-WebSocket-Protocol", offered[0])
    handler.end_headers()
    handler.close_connection = True
    if greeting:
        _send(handler.wfile, 0x2, greeting)
    _echo(handler.rfile, handler.wfile)


def _send(wfile, opcode, payload):
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    wfile.write(head + payload)
    wfile.flush()


def _read_frame(rfile):
    head = rfile.read(2)
    if len(head) < 2:
        return None, None
    opcode = head[0] & 0x0F
    masked = head[1] & 0x80
    n = head[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", rfile.read(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", rfile.read(8))[0]
    mask = rfile.read(4) if masked else b"\0\0\0\0"
    data = rfile.read(n)
    return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _echo(rfile, wfile):
    while True:
        try:
            opcode, payload = _read_frame(rfile)
        except OSError:
            return
        if opcode is None:
            return
        if opcode == 0x8:           # close: answer and stop
            _send(wfile, 0x8, payload[:2])
            return
        if opcode == 0x9:           # ping
            _send(wfile, 0xA, payload)
        elif opcode in (0x0, 0x1, 0x2):
            _send(wfile, opcode or 0x2, payload)
