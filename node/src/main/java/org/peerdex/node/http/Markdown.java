package org.peerdex.node.http;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough Markdown for the manual: headings, paragraphs, lists, code blocks, tables as text, inline code, links. */
public final class Markdown {
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern BOLD = Pattern.compile("\\*\\*([^*]+)\\*\\*");

    private Markdown() {}

    public static String toHtml(String md) {
        StringBuilder out = new StringBuilder();
        boolean inCode = false;
        boolean inList = false;
        StringBuilder para = new StringBuilder();
        for (String line : md.split("\n", -1)) {
            if (line.startsWith("```")) {
                flush(out, para);
                if (inList) {
                    out.append("</ul>\n");
                    inList = false;
                }
                out.append(inCode ? "</code></pre>\n" : "<pre><code>");
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                out.append(CompatRoutes.xml(line)).append('\n');
                continue;
            }
            String t = line.strip();
            if (t.isEmpty()) {
                flush(out, para);
                if (inList) {
                    out.append("</ul>\n");
                    inList = false;
                }
                continue;
            }
            int level = 0;
            while (level < t.length() && level < 6 && t.charAt(level) == '#') level++;
            if (level > 0 && level < t.length() && t.charAt(level) == ' ') {
                flush(out, para);
                out.append("<h").append(level).append('>').append(inline(t.substring(level + 1).trim()))
                        .append("</h").append(level).append(">\n");
                continue;
            }
            if (t.startsWith("- ") || t.startsWith("* ") || t.matches("\\d+\\. .*")) {
                flush(out, para);
                if (!inList) {
                    out.append("<ul>\n");
                    inList = true;
                }
                out.append("<li>").append(inline(t.substring(t.indexOf(' ') + 1))).append("</li>\n");
                continue;
            }
            if (t.startsWith("|")) {
                if (t.matches("\\|[\\s\\-:|]+\\|?")) continue;
                flush(out, para);
                out.append("<p class=\"row\">").append(inline(t.replace("|", " · ").replaceAll("^ · | · $", "")))
                        .append("</p>\n");
                continue;
            }
            if (para.length() > 0) para.append(' ');
            para.append(t);
        }
        flush(out, para);
        if (inList) out.append("</ul>\n");
        if (inCode) out.append("</code></pre>\n");
        return out.toString();
    }

    private static void flush(StringBuilder out, StringBuilder para) {
        if (para.length() == 0) return;
        out.append("<p>").append(inline(para.toString())).append("</p>\n");
        para.setLength(0);
    }

    static String inline(String s) {
        String x = CompatRoutes.xml(s);
        x = CODE.matcher(x).replaceAll("<code>$1</code>");
        x = BOLD.matcher(x).replaceAll("<b>$1</b>");
        Matcher m = LINK.matcher(x);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String href = m.group(2).replaceAll("\\.md($|#)", ".html$1");
            m.appendReplacement(b, Matcher.quoteReplacement("<a href=\"" + href + "\">" + m.group(1) + "</a>"));
        }
        m.appendTail(b);
        return b.toString();
    }
}
