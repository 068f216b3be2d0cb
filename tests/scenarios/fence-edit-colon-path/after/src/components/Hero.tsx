export function Hero({ title }: { title: string }) {
  return (
    <section className="hero">
      <h1>{title}</h1>
    </section>
  );
}
