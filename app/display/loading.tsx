/** Black while the server checks the token: a wall screen must not flash the light theme. */
export default function Loading() {
  return <div className="fixed inset-0 bg-black" />;
}
