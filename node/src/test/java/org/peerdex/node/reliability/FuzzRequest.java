package org.peerdex.node.reliability;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * One malformed (or merely odd) HTTP request drawn from a seeded random: methods, paths, query parameters,
 * headers and bodies that clients get wrong or attackers try. The same Random state gives the same bytes.
 */
record FuzzRequest(String method, byte[] bytes, String summary, boolean truncated) {
    private static final String[] METHODS = {"GET", "GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD",
        "OPTIONS", "TRACE", "CONNECT", "FOO", "get", ""};
    private static final String[] PATHS = {"/api/search", "/api/search", "/api/search/stream", "/api/status",
        "/api/peers", "/api/ranking", "/api/feedback", "/api/index/word/", "/api/index/url/", "/api/index/manual",
        "/api/index/document", "/yacysearch.json", "/yacysearch.rss", "/suggest.json", "/opensearchdescription.xml",
        "/solr/select", "/api/crawl", "/api/crawl/", "/api/import/rss", "/api/blacklist", "/", "/docs/", "/admin/",
        "/api/", "/api", "//api//search", "/api/search/", "/nope"};
    private static final String[] PARAMS = {"q", "q", "query", "count", "offset", "resource", "verify", "nav",
        "explain", "contentdom", "maximumRecords", "startRecord", "urlmaskfilter", "limit", "rows", "start", "fl",
        "fq", "wt", "x", ""};
    private static final String[] WORDS = {"tarn", "compaction", "backup", "index", "query", "configuration",
        "min_wal_size", "json.dumps"};

    boolean head() {
        return method.equals("HEAD");
    }

    String describe() {
        return summary;
    }

    static FuzzRequest generate(Random r) {
        String method = pick(r, METHODS);
        StringBuilder target = new StringBuilder(pick(r, PATHS));
        if (target.toString().endsWith("/") && r.nextBoolean()) target.append(segment(r));
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        int params = r.nextInt(5);
        for (int i = 0; i < params; i++) {
            target.append(i == 0 ? '?' : (r.nextInt(10) == 0 ? ';' : '&'));
            target.append(pick(r, PARAMS)).append(r.nextInt(12) == 0 ? "" : "=").append(value(r));
        }
        byte[] body = r.nextInt(3) == 0 || method.equals("POST") || method.equals("PUT") ? body(r) : new byte[0];
        String version = switch (r.nextInt(20)) {
            case 0 -> "HTTP/1.0";
            case 1 -> "HTTP/9.9";
            case 2 -> "HTPT/1.1";
            case 3 -> "";
            default -> "HTTP/1.1";
        };
        String eol = r.nextInt(25) == 0 ? "\n" : "\r\n";
        write(raw, method + " ");
        write(raw, target.toString());
        if (r.nextInt(15) == 0) raw.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, ' ', 'x'});
        write(raw, " " + version + eol);
        if (r.nextInt(20) != 0) write(raw, "Host: 127.0.0.1" + eol);
        write(raw, "Connection: close" + eol);
        boolean lengthSent = false;
        boolean truncated = false;
        int headers = r.nextInt(4);
        StringBuilder hs = new StringBuilder();
        for (int i = 0; i < headers; i++) {
            String h = header(r, body.length);
            if (h.startsWith("Content-Length") || h.startsWith("Transfer-Encoding")) lengthSent = true;
            if (h.startsWith("Content-Length: ") && h.substring(16).matches("\\d+")
                    && Integer.parseInt(h.substring(16)) > body.length) truncated = true;
            hs.append(h.length() > 60 ? h.substring(0, 60) + "..." : h).append(" | ");
            write(raw, h + eol);
        }
        if (body.length > 0) {
            if (!lengthSent) write(raw, "Content-Length: " + body.length + eol);
            if (r.nextInt(4) != 0) write(raw, "Content-Type: " + contentType(r) + eol);
        }
        write(raw, eol);
        raw.writeBytes(body);
        String t = target.length() > 160 ? target.substring(0, 160) + "...(" + target.length() + " chars)" : target.toString();
        String b = new String(body, 0, Math.min(80, body.length), StandardCharsets.ISO_8859_1);
        return new FuzzRequest(method, raw.toByteArray(), method + " " + t + " " + version + " headers [" + hs
                + "] body " + body.length + " bytes '" + b + "'", truncated);
    }

    private static String segment(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> "%zz";
            case 1 -> "%";
            case 2 -> "%e2%28%a1";
            case 3 -> "%00";
            case 4 -> "..%2f..%2fetc%2fpasswd";
            case 5 -> "x".repeat(1 + r.nextInt(6000));
            case 6 -> "%C0%AF";
            case 7 -> "AAAAAAAAAAAA";
            case 8 -> "%F0%9F%94%8D";
            case 9 -> "a%2Fb";
            case 10 -> "";
            default -> pick(r, WORDS);
        };
    }

    private static String value(Random r) {
        return switch (r.nextInt(30)) {
            case 0 -> "-1";
            case 1 -> "0";
            case 2 -> "2147483648";
            case 3 -> "99999999999999999999";
            case 4 -> "1e9";
            case 5 -> "%20%205%20";
            case 6 -> "0x10";
            case 7 -> "w".repeat(100 + r.nextInt(3000));
            case 8 -> "%zz";
            case 9 -> "%";
            case 10 -> "%FF%FE%FD";
            case 11 -> "%C3%28";
            case 12 -> "%22unbalanced";
            case 13 -> "((((((((";
            case 14 -> "site:";
            case 15 -> "lang:zzzzzzz";
            case 16 -> "filetype:%00";
            case 17 -> manyWords(r);
            case 18 -> "(.*.*)*%5B%23%5D";
            case 19 -> "(a%7Caa)*c";
            case 20 -> "%5B";
            case 21 -> "global";
            case 22 -> "true";
            case 23 -> "cacheonly";
            case 24 -> "-" + pick(r, WORDS);
            case 25 -> "%22" + pick(r, WORDS) + "+" + pick(r, WORDS) + "%22";
            case 26 -> "all";
            case 27 -> "%E2%80%8B%EF%BB%BF";
            default -> pick(r, WORDS);
        };
    }

    private static String manyWords(Random r) {
        StringBuilder b = new StringBuilder();
        int n = 10 + r.nextInt(200);
        for (int i = 0; i < n; i++) b.append(i == 0 ? "" : "+").append(pick(r, WORDS)).append(i);
        return b.toString();
    }

    private static byte[] body(Random r) {
        String s = switch (r.nextInt(22)) {
            case 0 -> "";
            case 1 -> "{";
            case 2 -> "[]";
            case 3 -> "null";
            case 4 -> "{\"a\":";
            case 5 -> "[".repeat(5000 + r.nextInt(100_000));
            case 6 -> "{\"urlHash\": 5, \"action\": []}";
            case 7 -> "{\"urlHash\": \"AAAAAAAAAAAA\", \"action\": \"explode\"}";
            case 8 -> "{\"weights\": {\"bm25\": 1e999999}}";
            case 9 -> "{\"url\": \"http://127.0.0.1:1/x\", \"title\": 7, \"text\": null}";
            case 10 -> "{\"url\": \"javascript:alert(1)\", \"title\": \"t\", \"text\": \"x\"}";
            case 11 -> "{\"url\": \"" + "u".repeat(20_000) + "\"}";
            case 12 -> "\"just a string\"";
            case 13 -> "{\"rules\": [{\"scope\": \"nope\", \"path\": \"(\"}]}";
            case 14 -> "{\"depth\": -5, \"url\": 3}";
            case 15 -> "{\"a\": \"" + "s".repeat(10_000 + r.nextInt(200_000)) + "\"}";
            case 16 -> "1";
            case 17 -> "{\"url\": \"http://127.0.0.1:1/doc\", \"title\": \"t\", \"text\": [1,2]}";
            case 18 -> "{\"x\": " + "{\"x\": ".repeat(2000) + "1" + "}".repeat(2001);
            case 19 -> "true";
            default -> "{\"q\": \"tarn\"}";
        };
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(10) == 0 && b.length > 2) b[b.length / 2] = (byte) 0xFF; // invalid UTF-8 inside the JSON
        return b;
    }

    private static String header(Random r, int bodyLength) {
        return switch (r.nextInt(16)) {
            case 0 -> "X-Big: " + "h".repeat(1000 + r.nextInt(20_000));
            case 1 -> "Content-Length: -1";
            case 2 -> "Content-Length: abc";
            case 3 -> "Transfer-Encoding: chunked";
            case 4 -> "Transfer-Encoding: gzip";
            case 5 -> "Expect: 100-continue";
            case 6 -> "Authorization: Basic !!!notbase64";
            case 7 -> "Authorization: Basic " + java.util.Base64.getEncoder().encodeToString("admin:wrong".getBytes());
            case 8 -> "Content-Type: application/json; charset=klingon";
            case 9 -> "Accept: text/nonsense";
            case 10 -> "Range: bytes=9999999-";
            case 11 -> "Bad Header Name: x";
            case 12 -> "X-Forwarded-For: 10.0.0." + r.nextInt(255);
            case 13 -> "Content-Length: " + (bodyLength + 1 + r.nextInt(5));
            case 14 -> "Accept-Encoding: gzip, deflate, br";
            default -> "X-" + r.nextInt(1000) + ": " + r.nextLong();
        };
    }

    private static String contentType(Random r) {
        return switch (r.nextInt(5)) {
            case 0 -> "text/plain";
            case 1 -> "application/x-www-form-urlencoded";
            case 2 -> "application/json; charset=utf-16";
            case 3 -> "garbage";
            default -> "application/json";
        };
    }

    private static String pick(Random r, String[] from) {
        return from[r.nextInt(from.length)];
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }
}
