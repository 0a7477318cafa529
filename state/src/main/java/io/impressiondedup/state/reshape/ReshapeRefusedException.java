package io.impressiondedup.state.reshape;

/**
 * A reshape that cannot be done without loss ({@link ShardReshape#plan}): its message names the shard count asked
 * for, the bucket or shard in the way and what works instead, and says that nothing was written.
 */
public final class ReshapeRefusedException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    ReshapeRefusedException(String message) {
        super(message);
    }
}
