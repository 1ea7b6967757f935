package org.peerdex.actors.search.federation;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to a cap: a declared Content-Length over the cap is refused before any byte
 * is read, and a body that grows over it is cut off (the exchange is cancelled) with {@link TooLarge}.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The answer was longer than the source may send. */
    static final class TooLarge extends IOException {
        TooLarge(long cap) {
            super("answer larger than " + cap + " bytes");
        }
    }

    private final long cap;
    private final long declared;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private Flow.Subscription subscription;
    private long size;

    private CappedBody(long cap, long declared) {
        this.cap = cap;
        this.declared = declared;
    }

    static HttpResponse.BodyHandler<byte[]> handler(long cap) {
        return info -> new CappedBody(cap, info.headers().firstValueAsLong("content-length").orElse(-1));
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (declared > cap) {
            s.cancel();
            result.completeExceptionally(new TooLarge(cap));
            return;
        }
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (result.isDone()) return;
        for (ByteBuffer b : items) {
            size += b.remaining();
            if (size > cap) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge(cap));
                return;
            }
            byte[] chunk = new byte[b.remaining()];
            b.get(chunk);
            out.write(chunk, 0, chunk.length);
        }
        subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
        result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        result.complete(out.toByteArray());
    }
}
