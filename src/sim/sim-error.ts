// The venue error a simulator handler raises: a catalogue code and a message naming the cause. The
// gateway answers it as the venue's error envelope; the admin API as a 400 or 404.

/** A venue error raised by a handler: a catalogue code and a message naming the cause. */
export class SimError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimError';
  }
}
