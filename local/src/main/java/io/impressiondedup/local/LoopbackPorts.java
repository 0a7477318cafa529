package io.impressiondedup.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on the loopback address, for the broker, the web UI and the local cluster. A port
 * found free may be taken by another process before it is bound; callers that can retry do so.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {}

    /** One port free at the time of the call. */
    public static int free() throws IOException {
        return free(1)[0];
    }

    /** {@code count} distinct ports, free at the time of the call (held together while chosen, so never the same twice). */
    public static int[] free(int count) throws IOException {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    socket.close();
                }
            }
        }
    }

    /** The first free port of {@code first} to {@code first + tries - 1}: a well-known port, or the next one if it is taken. */
    public static int firstFree(int first, int tries) throws IOException {
        for (int port = first; port < first + tries; port++) {
            try (ServerSocket socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // try the next
            }
        }
        throw new IOException("No free port in " + first + ".." + (first + tries - 1));
    }
}
