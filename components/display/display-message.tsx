interface DisplayMessageProps {
  title: string;
  children?: React.ReactNode;
  /** Amber for "wait", red for "this will not work until someone acts". */
  tone?: "wait" | "problem";
}

/**
 * A full-screen message on the wall, legible from across the room, in place
 * of the grid: a missing or wrong token, no hosts, connecting. Never a
 * sign-in form: nobody stands at a wall screen with a keyboard.
 */
export function DisplayMessage({ title, children, tone = "problem" }: DisplayMessageProps) {
  return (
    <main
      data-testid="display-message"
      className="fixed inset-0 flex flex-col items-center justify-center gap-6 overflow-hidden bg-black p-[4vmin] text-center text-white [color-scheme:dark]"
    >
      <h1 className={`text-[5vmin] leading-tight font-bold ${tone === "problem" ? "text-red-400" : "text-amber-300"}`}>{title}</h1>
      {children && <div className="max-w-[80vw] space-y-3 text-[2.6vmin] leading-snug text-zinc-200">{children}</div>}
    </main>
  );
}
