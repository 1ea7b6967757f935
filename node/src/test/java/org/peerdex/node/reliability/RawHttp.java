package org.peerdex.node.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, so a test can send what no HTTP client library would: invalid bytes in the request
 * line, broken percent-encoding, lying Content-Length, half a request.
 */
final class RawHttp {
    /** What came back: status (-1 if the server closed without answering), headers (lower-case names), body. */
    record Response(int status, Map<String, String> headers, byte[] body, boolean timedOut) {
        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    private RawHttp() {}

    /** Sends the bytes on a fresh connection (the request should say Connection: close) and reads the answer. */
    static Response exchange(int port, byte[] request, int timeoutMillis) throws IOException {
        return exchange("127.0.0.1", port, request, timeoutMillis);
    }

    /** As {@link #exchange(int, byte[], int)}, from a given loopback address (127.0.0.2 is another client). */
    static Response exchange(String from, int port, byte[] request, int timeoutMillis) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (IOException e) {
                // the server may answer (413, 431) and close before it read everything: read what it said
            }
            return read(s.getInputStream());
        }
    }

    static Response read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        boolean timedOut = false;
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                all.write(buf, 0, n);
                if (complete(withoutInterim(all.toByteArray()))) break;
            }
        } catch (SocketTimeoutException e) {
            timedOut = true;
        } catch (IOException e) {
            // connection reset after the answer was written: parse what arrived
        }
        return parse(withoutInterim(all.toByteArray()), timedOut);
    }

    /** Drops interim 1xx answers (100 Continue) in front of the real one. */
    private static byte[] withoutInterim(byte[] b) {
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        while (b.length > 13 && new String(b, 0, 13, StandardCharsets.ISO_8859_1).matches("HTTP/1\\.[01] 1\\d\\d ")) {
            int head = indexOf(b, end);
            if (head < 0) break;
            b = java.util.Arrays.copyOfRange(b, head + 4, b.length);
        }
        return b;
    }

    /** True once the head and a Content-Length body (or the last chunk) have arrived. */
    private static boolean complete(byte[] b) {
        int head = indexOf(b, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (head < 0) return false;
        Map<String, String> h = headers(new String(b, 0, head, StandardCharsets.ISO_8859_1));
        String len = h.get("content-length");
        if (len != null) return b.length - head - 4 >= Long.parseLong(len.trim());
        if ("chunked".equalsIgnoreCase(h.getOrDefault("transfer-encoding", ""))) {
            return indexOf(b, "\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) >= 0;
        }
        return false;
    }

    static Response parse(byte[] b, boolean timedOut) {
        int head = indexOf(b, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (head < 0) return new Response(-1, Map.of(), b, timedOut);
        String headText = new String(b, 0, head, StandardCharsets.ISO_8859_1);
        String statusLine = headText.lines().findFirst().orElse("");
        String[] parts = statusLine.split(" ");
        int status = parts.length > 1 && parts[1].matches("\\d{3}") ? Integer.parseInt(parts[1]) : -1;
        Map<String, String> h = headers(headText);
        byte[] body = java.util.Arrays.copyOfRange(b, head + 4, b.length);
        if ("chunked".equalsIgnoreCase(h.getOrDefault("transfer-encoding", ""))) body = unchunk(body);
        return new Response(status, h, body, timedOut);
    }

    private static Map<String, String> headers(String head) {
        Map<String, String> h = new LinkedHashMap<>();
        head.lines().skip(1).forEach(l -> {
            int c = l.indexOf(':');
            if (c > 0) h.put(l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
        });
        return h;
    }

    private static byte[] unchunk(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 0;
        while (pos < b.length) {
            int eol = indexOf(b, pos, "\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (eol < 0) break;
            String size = new String(b, pos, eol - pos, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int n;
            try {
                n = Integer.parseInt(size, 16);
            } catch (NumberFormatException e) {
                break;
            }
            if (n == 0) break;
            int start = eol + 2;
            out.write(b, start, Math.min(n, b.length - start));
            pos = start + n + 2;
        }
        return out.toByteArray();
    }

    static int indexOf(byte[] b, byte[] pat) {
        return indexOf(b, 0, pat);
    }

    static int indexOf(byte[] b, int from, byte[] pat) {
        outer:
        for (int i = from; i <= b.length - pat.length; i++) {
            for (int j = 0; j < pat.length; j++) if (b[i + j] != pat[j]) continue outer;
            return i;
        }
        return -1;
    }
}
