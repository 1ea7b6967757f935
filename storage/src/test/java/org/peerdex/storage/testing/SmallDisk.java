package org.peerdex.storage.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small real filesystem for disk-full tests: a tmpfs mounted on a fresh directory (needs root, as in CI; a test
 * using it is skipped otherwise), filled with a ballast file and freed again.
 */
public final class SmallDisk implements AutoCloseable {
    private final Path mount;
    private final Path ballast;

    private SmallDisk(Path mount) {
        this.mount = mount;
        this.ballast = mount.resolve("ballast");
    }

    /** Mounts a tmpfs of {@code mib} MiB, or skips the calling test when it cannot. */
    public static SmallDisk mount(int mib) throws Exception {
        Path dir = Files.createTempDirectory("peerdex-small-disk");
        Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=" + mib + "m", "peerdex-small-disk", dir.toString()) == 0,
                "cannot mount a tmpfs (needs root): disk-full test skipped");
        return new SmallDisk(dir);
    }

    public Path path() {
        return mount;
    }

    /** Fills the filesystem to its last byte. */
    public void fill() {
        fillLeaving(0);
    }

    /** Fills the filesystem until about {@code bytes} are left free. */
    public void fillLeaving(long bytes) {
        try (OutputStream out = Files.newOutputStream(ballast)) {
            byte[] block = new byte[16 * 1024];
            long room = mount.toFile().getUsableSpace() - bytes;
            for (long n = 0; bytes == 0 || n + block.length <= room; n += block.length) out.write(block);
        } catch (IOException full) {
            // the filesystem is full now
        }
    }

    /** Grows the filesystem to {@code mib} MiB (a remount; what is on it stays): the space returns. */
    public void grow(int mib) throws Exception {
        if (run("mount", "-o", "remount,size=" + mib + "m", mount.toString()) != 0) {
            throw new IllegalStateException("cannot grow the tmpfs at " + mount + " to " + mib + " MiB");
        }
    }

    /** Deletes the ballast: the space returns. */
    public void free() throws IOException {
        Files.deleteIfExists(ballast);
    }

    @Override
    public void close() throws Exception {
        if (run("umount", mount.toString()) != 0) run("umount", "-l", mount.toString());
        Files.deleteIfExists(mount);
    }

    /** Runs a command (mount, umount) and returns its exit status, -1 after 30 s; its output is printed on failure. */
    public static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        if (p.exitValue() != 0) System.out.println(String.join(" ", cmd) + ": " + out.strip());
        return p.exitValue();
    }
}
