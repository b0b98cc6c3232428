import { type Answer, makeCertificates, type ReceivedDelivery, startReceiver } from './https-receiver.ts';
import { startTestRuntime } from './runtime.ts';

/**
 * A local runtime whose webhooks reach an HTTPS receiver: a test CA, the receiver (answering with
 * `answer`), and the runtime started with `env` and that CA. `WEBHOOK_EXTRA_CA_CERTS` is read when
 * needed (NODE_EXTRA_CA_CERTS only when a process starts). `stop` undoes all three; so does a
 * failed start.
 */
export const startReceiverRuntime = async (
  options: {
    env?: Record<string, string>;
    answer?: (request: ReceivedDelivery, index: number) => Answer;
  } = {},
) => {
  const certs = makeCertificates();
  const receiver = await startReceiver(certs, options.answer).catch((error) => {
    certs.remove();
    throw error;
  });
  const stopReceiver = async () => {
    await receiver.close();
    certs.remove();
  };
  const rt = await startTestRuntime({
    env: { ...options.env, WEBHOOK_EXTRA_CA_CERTS: certs.caFile },
  }).catch(async (error) => {
    await stopReceiver();
    throw error;
  });
  return {
    rt,
    receiver,
    stop: async () => {
      await rt.destroy();
      await stopReceiver();
    },
  };
};
