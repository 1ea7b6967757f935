package org.peerdex.actors.importer;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;

/** StAX factories that read no DTDs and resolve no external entities (the input is untrusted). */
final class Xml {
    private Xml() {}

    static XMLInputFactory safeFactory() {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(XMLInputFactory.IS_COALESCING, true);
        return f;
    }

    /** "line L, column C: message" of a StAX error, for the job's error. */
    static String where(XMLStreamException e) {
        var loc = e.getLocation();
        String msg = e.getMessage() == null ? "malformed XML" : e.getMessage();
        int nl = msg.indexOf("\nMessage: ");
        if (nl >= 0) msg = msg.substring(nl + "\nMessage: ".length());
        return loc == null ? msg : "line " + loc.getLineNumber() + ", column " + loc.getColumnNumber() + ": " + msg;
    }
}
