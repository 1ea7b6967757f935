package org.peerdex.actors.parse;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Decides what a body really is from its first bytes, whatever the Content-Type header claims. */
public final class ContentSniffer {
    private static final int SNIFF = 1024;

    /** What the bytes look like. */
    public enum Kind { HTML, TEXT, BINARY }

    private ContentSniffer() {}

    /** The media type without parameters, lower case, or "" when absent. */
    public static String mimeType(String contentType) {
        if (contentType == null) return "";
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    public static Kind sniff(byte[] body) {
        int n = Math.min(body.length, SNIFF);
        if (n == 0) return Kind.TEXT;
        if (magic(body, "%PDF") || magic(body, "\u0089PNG") || magic(body, "GIF8") || magic(body, "PK\u0003\u0004")
                || (body.length > 2 && (body[0] & 0xff) == 0xFF && (body[1] & 0xff) == 0xD8)
                || (body.length > 1 && (body[0] & 0xff) == 0x1F && (body[1] & 0xff) == 0x8B)) {
            return Kind.BINARY;
        }
        boolean utf16 = body.length > 1 && (((body[0] & 0xff) == 0xFE && (body[1] & 0xff) == 0xFF)
                || ((body[0] & 0xff) == 0xFF && (body[1] & 0xff) == 0xFE));
        int control = 0;
        for (int i = 0; i < n; i++) {
            int b = body[i] & 0xff;
            if (b == 0 && !utf16) return Kind.BINARY;
            if (b < 0x09 || (b > 0x0D && b < 0x20 && b != 0x1B)) control++;
        }
        if (!utf16 && control * 10 > n) return Kind.BINARY;
        String head = new String(body, 0, n, StandardCharsets.ISO_8859_1).stripLeading()
                .toLowerCase(Locale.ROOT);
        if (head.startsWith("\u00ef\u00bb\u00bf")) head = head.substring(3).stripLeading();
        if (head.startsWith("<!doctype html") || head.startsWith("<html") || head.startsWith("<head")
                || head.startsWith("<body") || head.startsWith("<!--") || head.contains("<html")
                || head.contains("<body") || head.contains("<p>") || head.contains("<div")) {
            return Kind.HTML;
        }
        return Kind.TEXT;
    }

    private static boolean magic(byte[] body, String m) {
        if (body.length < m.length()) return false;
        for (int i = 0; i < m.length(); i++) if ((body[i] & 0xff) != m.charAt(i)) return false;
        return true;
    }
}
